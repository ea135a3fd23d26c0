package main

import (
	"fmt"
	"io"
	"os"
)

// readPiece bounds the memory of a check whatever the upload's size.
const readPiece = 1 << 20

// storedRoot is the 32-byte BLAKE3 root of the file at path, which must hold exactly size
// bytes: read once, a piece at a time.
func storedRoot(path string, size int64, m mode) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := m.hasher()
	n, err := io.CopyBuffer(h, io.LimitReader(f, size+1), make([]byte, readPiece))
	if err != nil {
		return nil, err
	}
	if n > size {
		return nil, fmt.Errorf("%s holds more than the upload's %d bytes", path, size)
	}
	if n < size {
		return nil, fmt.Errorf("%s holds %d bytes, the upload has %d", path, n, size)
	}
	return h.Sum(nil), nil
}
