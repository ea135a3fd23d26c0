package main

import (
	"encoding/hex"
	"fmt"
	"regexp"

	"github.com/zeebo/blake3"
)

// The hook's configuration comes from the environment: tusd runs a file hook with its own
// environment and no arguments.
const (
	keyEnv     = "TUSD_BLAKE3_KEY"     // 64 lowercase hex digits: keyed_hash mode
	contextEnv = "TUSD_BLAKE3_CONTEXT" // a context string: derive_key mode
)

var keyPattern = regexp.MustCompile(`^[0-9a-f]{64}$`)

// mode makes hashers in one of BLAKE3's three modes, as the client hashes (blake3Tus's key or
// context).
type mode struct {
	key     []byte
	context string
}

// modeFromEnv reads the mode: hash by default, keyed with a key, derive_key with a context.
func modeFromEnv(getenv func(string) string) (mode, error) {
	k, c := getenv(keyEnv), getenv(contextEnv)
	switch {
	case k != "" && c != "":
		return mode{}, fmt.Errorf("%s and %s are both set: give one mode", keyEnv, contextEnv)
	case k != "":
		if !keyPattern.MatchString(k) {
			return mode{}, fmt.Errorf("%s must be 64 lowercase hex digits (a 32-byte key), got %d characters", keyEnv, len(k))
		}
		key, _ := hex.DecodeString(k)
		return mode{key: key}, nil
	default:
		return mode{context: c}, nil
	}
}

func (m mode) hasher() *blake3.Hasher {
	if m.key != nil {
		h, err := blake3.NewKeyed(m.key)
		if err != nil {
			panic(err) // the key's length was checked
		}
		return h
	}
	if m.context != "" {
		return blake3.NewDeriveKey(m.context)
	}
	return blake3.New()
}
