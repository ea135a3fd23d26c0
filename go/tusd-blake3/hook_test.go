package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zeebo/blake3"
)

// upload lays out a finished upload as tusd's file store keeps it (the data and its .info file)
// and the pre-finish request tusd sends for it, with the given Upload-Blake3 values.
func upload(t *testing.T, data []byte, roots ...string) (hookRequest, string, string) {
	t.Helper()
	dir := t.TempDir()
	path, info := filepath.Join(dir, "abc123"), filepath.Join(dir, "abc123.info")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(info, []byte(`{"ID":"abc123"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	var req hookRequest
	req.Type = "pre-finish"
	req.Event.Upload.ID = "abc123"
	req.Event.Upload.Size = int64(len(data))
	req.Event.Upload.Offset = int64(len(data))
	req.Event.Upload.Storage = map[string]string{"Type": "filestore", "Path": path, "InfoPath": info}
	req.Event.HTTPRequest.Header = map[string][]string{"Tus-Resumable": {"1.0.0"}}
	if len(roots) > 0 {
		req.Event.HTTPRequest.Header[rootHeader] = roots
	}
	return req, path, info
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func sum(data []byte) string {
	s := blake3.Sum256(data)
	return hex.EncodeToString(s[:])
}

var data = func() []byte {
	b := make([]byte, 3*readPiece+4321)
	rand.New(rand.NewSource(7)).Read(b)
	return b
}()

func TestHonestUploadVerifies(t *testing.T) {
	root := sum(data)
	req, path, info := upload(t, data, root)
	res, err := preFinish(req, mode{})
	if err != nil {
		t.Fatal(err)
	}
	if res.HTTPResponse.StatusCode != 0 || res.HTTPResponse.Header[verifiedHeader] != root {
		t.Errorf("answered %+v, want tusd's own status and %s: %s", res.HTTPResponse, verifiedHeader, root)
	}
	if !exists(path) || !exists(info) {
		t.Error("a verified upload was removed")
	}
}

// refused asserts a refusal: 460, the reason in tusd's error format, no computed hash anywhere in
// the response, and the upload gone.
func refused(t *testing.T, req hookRequest, path, info string, m mode, computed, why string) {
	t.Helper()
	res, err := preFinish(req, m)
	if err != nil {
		t.Fatal(err)
	}
	r := res.HTTPResponse
	if r.StatusCode != refusedStatus || !strings.HasPrefix(r.Body, refusedCode+": ") || !strings.Contains(r.Body, why) {
		t.Errorf("answered %d %q, want %d with %q", r.StatusCode, r.Body, refusedStatus, why)
	}
	encoded, _ := json.Marshal(res)
	if strings.Contains(strings.ToLower(string(encoded)), computed) {
		t.Errorf("the refusal discloses the computed hash: %s", encoded)
	}
	if _, ok := r.Header[verifiedHeader]; ok {
		t.Error("a refused upload was answered as verified")
	}
	if exists(path) || exists(info) {
		t.Error("a refused upload was kept")
	}
}

func TestTamperedByteRefused(t *testing.T) {
	root := sum(data)
	for _, at := range []int{0, 1023, 1024, readPiece, len(data) - 1} {
		tampered := bytes.Clone(data)
		tampered[at] ^= 1
		req, path, info := upload(t, tampered, root)
		refused(t, req, path, info, mode{}, sum(tampered), "the bytes stored do not have the root the client sent")
	}
}

func TestBadHeadersRefused(t *testing.T) {
	root := sum(data)
	cases := []struct {
		name   string
		header map[string][]string
		why    string
	}{
		{"missing", nil, "carried no Upload-Blake3 header"},
		{"empty", map[string][]string{rootHeader: {""}}, "64 lowercase hex digits"},
		{"short", map[string][]string{rootHeader: {root[:62]}}, "64 lowercase hex digits"},
		{"long", map[string][]string{rootHeader: {root + "00"}}, "64 lowercase hex digits"},
		{"upper-case", map[string][]string{rootHeader: {strings.ToUpper(root)}}, "64 lowercase hex digits"},
		{"spaces", map[string][]string{rootHeader: {" " + root}}, "64 lowercase hex digits"},
		{"repeated", map[string][]string{rootHeader: {root, root}}, "sent more than once"},
		{"repeated, other case", map[string][]string{rootHeader: {root}, "upload-blake3": {root}}, "sent more than once"},
		{"joined", map[string][]string{rootHeader: {root + ", " + root}}, "64 lowercase hex digits"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, path, info := upload(t, data)
			for k, v := range c.header {
				req.Event.HTTPRequest.Header[k] = v
			}
			refused(t, req, path, info, mode{}, root, c.why)
		})
	}
}

func TestKeyedAndDerivedModes(t *testing.T) {
	key := bytes.Repeat([]byte{0x42}, 32)
	keyed, _ := blake3.NewKeyed(key)
	keyed.Write(data)
	tag := hex.EncodeToString(keyed.Sum(nil))
	derived := blake3.NewDeriveKey("example.com 2026 uploads")
	derived.Write(data)
	dk := hex.EncodeToString(derived.Sum(nil))

	req, _, _ := upload(t, data, tag)
	if res, err := preFinish(req, mode{key: key}); err != nil || res.HTTPResponse.StatusCode != 0 {
		t.Errorf("the keyed root refused: %+v, %v", res, err)
	}
	req, _, _ = upload(t, data, dk)
	if res, err := preFinish(req, mode{context: "example.com 2026 uploads"}); err != nil || res.HTTPResponse.StatusCode != 0 {
		t.Errorf("the derived root refused: %+v, %v", res, err)
	}
	// The plain hash sent to a keyed hook: refused without showing the tag.
	req, path, info := upload(t, data, sum(data))
	refused(t, req, path, info, mode{key: key}, tag, "do not have the root")
	req, path, info = upload(t, data, tag)
	refused(t, req, path, info, mode{}, sum(data), "do not have the root")
}

func TestEmptyUpload(t *testing.T) {
	req, path, info := upload(t, nil, sum(nil))
	if res, err := preFinish(req, mode{}); err != nil || res.HTTPResponse.Header[verifiedHeader] != sum(nil) {
		t.Errorf("the empty upload: %+v, %v", res, err)
	}
	req, path, info = upload(t, nil, sum([]byte{0}))
	refused(t, req, path, info, mode{}, sum(nil), "do not have the root")
}

func TestOtherEventsAndPartialUploadsPass(t *testing.T) {
	req, path, _ := upload(t, data)
	req.Type = "post-receive"
	if res, err := preFinish(req, mode{}); err != nil || res.HTTPResponse.StatusCode != 0 || !exists(path) {
		t.Errorf("post-receive: %+v, %v", res, err)
	}
	req.Type = "pre-finish"
	req.Event.Upload.IsPartial = true
	if res, err := preFinish(req, mode{}); err != nil || res.HTTPResponse.StatusCode != 0 || !exists(path) {
		t.Errorf("a partial upload: %+v, %v", res, err)
	}
}

func TestWhatCannotBeCheckedFails(t *testing.T) {
	root := sum(data)
	req, path, info := upload(t, data, root)
	req.Event.Upload.Storage = map[string]string{"Type": "s3store", "Bucket": "b", "Key": "k"}
	if _, err := preFinish(req, mode{}); !errors.Is(err, errUnverifiable) {
		t.Errorf("an upload in S3 passed: %v", err)
	}
	// A file shorter than the upload (truncated behind tusd's back): failed and removed.
	req, path, info = upload(t, data, root)
	if err := os.Truncate(path, 100); err != nil {
		t.Fatal(err)
	}
	if _, err := preFinish(req, mode{}); !errors.Is(err, errUnverifiable) || strings.Contains(err.Error(), root) {
		t.Errorf("a truncated upload: %v", err)
	}
	if exists(path) || exists(info) {
		t.Error("an upload that could not be checked was kept")
	}
}

// The program as tusd runs it: the request on stdin, the response on stdout, the exit status.
func TestRunAsFileHook(t *testing.T) {
	root := sum(data)
	req, _, _ := upload(t, data, root)
	in, _ := json.Marshal(req)
	var out, errOut bytes.Buffer
	if code := run(bytes.NewReader(in), &out, &errOut, func(string) string { return "" }); code != 0 {
		t.Fatalf("exit %d: %s %s", code, out.String(), errOut.String())
	}
	var res map[string]map[string]any
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if h, _ := res["HTTPResponse"]["Header"].(map[string]any); h[verifiedHeader] != root {
		t.Errorf("stdout %s", out.String())
	}

	tampered := bytes.Clone(data)
	tampered[5] ^= 0x80
	req, _, _ = upload(t, tampered, root)
	in, _ = json.Marshal(req)
	out.Reset()
	if code := run(bytes.NewReader(in), &out, &errOut, func(string) string { return "" }); code != 0 {
		t.Fatalf("a refusal is an answer, not a failure: exit %d", code)
	}
	if !strings.Contains(out.String(), `"StatusCode":460`) || strings.Contains(out.String(), sum(tampered)) {
		t.Errorf("stdout %s", out.String())
	}

	req, path, _ := upload(t, data, root)
	os.Truncate(path, 10)
	in, _ = json.Marshal(req)
	out.Reset()
	if code := run(bytes.NewReader(in), &out, &errOut, func(string) string { return "" }); code != 1 ||
		out.String() != errUnverifiable.Error()+"\n" || !strings.Contains(errOut.String(), path) {
		t.Errorf("a file that cannot be checked: exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}

	for name, c := range map[string]struct {
		stdin string
		env   map[string]string
	}{
		"not JSON":  {"{", nil},
		"a bad key": {string(in), map[string]string{keyEnv: "00"}},
		"two modes": {string(in), map[string]string{keyEnv: strings.Repeat("0", 64), contextEnv: "x"}},
	} {
		out.Reset()
		code := run(strings.NewReader(c.stdin), &out, &errOut, func(k string) string { return c.env[k] })
		if code != 1 || out.String() != "the BLAKE3 hook failed\n" {
			t.Errorf("%s: exit %d, stdout %q", name, code, out.String())
		}
	}
}
