module blake3-web/go/tusd-blake3

go 1.22

require github.com/zeebo/blake3 v0.2.4

require github.com/klauspost/cpuid/v2 v2.0.12 // indirect
