package main

import (
	"encoding/hex"
	"encoding/json"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The official test vectors, as the rest of the repository reads them.
const vectorsPath = "../../packages/testkit/vectors/blake3-official.json"

type vectors struct {
	Key     string
	Context string `json:"context_string"`
	Cases   []struct {
		InputLen  int    `json:"input_len"`
		Hash      string `json:"hash"`
		KeyedHash string `json:"keyed_hash"`
		DeriveKey string `json:"derive_key"`
	}
}

func paint(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i % 251)
	}
	return b
}

func writeTemp(t *testing.T, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "upload")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func rootHex(t *testing.T, path string, size int64, m mode) string {
	t.Helper()
	root, err := storedRoot(path, size, m)
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(root)
}

func TestOfficialVectors(t *testing.T) {
	raw, err := os.ReadFile(vectorsPath)
	if err != nil {
		t.Fatal(err)
	}
	var v vectors
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Cases) < 30 {
		t.Fatalf("only %d vectors read from %s", len(v.Cases), vectorsPath)
	}
	modes := []struct {
		name string
		m    mode
		want func(i int) string
	}{
		{"hash", mode{}, func(i int) string { return v.Cases[i].Hash }},
		{"keyed_hash", mode{key: []byte(v.Key)}, func(i int) string { return v.Cases[i].KeyedHash }},
		{"derive_key", mode{context: v.Context}, func(i int) string { return v.Cases[i].DeriveKey }},
	}
	for i, c := range v.Cases {
		path := writeTemp(t, paint(c.InputLen))
		for _, md := range modes {
			if got, want := rootHex(t, path, int64(c.InputLen), md.m), md.want(i)[:64]; got != want {
				t.Errorf("%s of %d bytes: %s, want %s", md.name, c.InputLen, got, want)
			}
		}
	}
}

// oracleRoots asks the official implementation (the blake3 Python package) for the root of each file.
func oracleRoots(t *testing.T, paths []string, m mode) []string {
	t.Helper()
	script := `import blake3, sys
key = bytes.fromhex(sys.argv[1]) if sys.argv[1] else None
context = sys.argv[2] or None
for p in sys.argv[3:]:
    data = open(p, 'rb').read()
    h = blake3.blake3(data, key=key) if key else blake3.blake3(data, derive_key_context=context) if context else blake3.blake3(data)
    print(h.hexdigest())`
	python := os.Getenv("PYTHON")
	if python == "" {
		python = "python3"
	}
	args := append([]string{"-c", script, hex.EncodeToString(m.key), m.context}, paths...)
	out, err := exec.Command(python, args...).Output()
	if err != nil {
		t.Fatalf("the reference oracle (%s with the blake3 package) failed: %v", python, err)
	}
	lines := strings.Fields(string(out))
	if len(lines) != len(paths) {
		t.Fatalf("the oracle gave %d roots for %d files", len(lines), len(paths))
	}
	return lines
}

func TestRandomInputsAgainstOfficial(t *testing.T) {
	seed := rand.Int63()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	sizes := []int{0, 1, 63, 64, 65, 1023, 1024, 1025, 2048, readPiece - 1, readPiece, readPiece + 1, 3*readPiece + 17}
	for i := 0; i < 8; i++ {
		sizes = append(sizes, rng.Intn(3*readPiece))
	}
	key := make([]byte, 32)
	rng.Read(key)
	dir := t.TempDir()
	paths := make([]string, len(sizes))
	for i, n := range sizes {
		data := make([]byte, n)
		rng.Read(data)
		paths[i] = filepath.Join(dir, string(rune('a'+i)))
		if err := os.WriteFile(paths[i], data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range []mode{{}, {key: key}, {context: "blake3-web tusd hook 2026-11-28 test context"}} {
		want := oracleRoots(t, paths, m)
		for i, p := range paths {
			if got := rootHex(t, p, int64(sizes[i]), m); got != want[i] {
				t.Errorf("seed %d, %d bytes, key %t, context %q: %s, want %s", seed, sizes[i], m.key != nil, m.context, got, want[i])
			}
		}
	}
}

func TestStoredLengthMustBeTheUploads(t *testing.T) {
	path := writeTemp(t, paint(5000))
	for _, size := range []int64{4999, 5001, 0} {
		if _, err := storedRoot(path, size, mode{}); err == nil {
			t.Errorf("a file of 5000 bytes hashed as an upload of %d", size)
		}
	}
	if _, err := storedRoot(filepath.Join(t.TempDir(), "none"), 0, mode{}); err == nil {
		t.Error("a missing file hashed")
	}
}

func TestModeFromEnv(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	m, err := modeFromEnv(env(nil))
	if err != nil || m.key != nil || m.context != "" {
		t.Errorf("no variables: %+v, %v", m, err)
	}
	k := strings.Repeat("ab", 32)
	if m, err = modeFromEnv(env(map[string]string{keyEnv: k})); err != nil || hex.EncodeToString(m.key) != k {
		t.Errorf("a key: %+v, %v", m, err)
	}
	if m, err = modeFromEnv(env(map[string]string{contextEnv: "ctx"})); err != nil || m.context != "ctx" {
		t.Errorf("a context: %+v, %v", m, err)
	}
	for _, bad := range []map[string]string{
		{keyEnv: k, contextEnv: "ctx"},
		{keyEnv: k[:62]},
		{keyEnv: strings.ToUpper(k)},
		{keyEnv: k + "00"},
	} {
		if _, err := modeFromEnv(env(bad)); err == nil {
			t.Errorf("%v accepted", bad)
		} else if strings.Contains(err.Error(), k) {
			t.Errorf("the error shows the key: %v", err)
		}
	}
}
