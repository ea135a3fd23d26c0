package main

import (
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// The parts of tusd 2's hook request and response (github.com/tus/tusd/v2/pkg/hooks) the hook
// reads and writes, in their JSON names.
type hookRequest struct {
	Type  string
	Event struct {
		Upload struct {
			ID        string
			Size      int64
			Offset    int64
			IsPartial bool
			Storage   map[string]string
		}
		HTTPRequest struct {
			Header map[string][]string
		}
	}
}

type httpResponse struct {
	StatusCode int               `json:",omitempty"`
	Body       string            `json:",omitempty"`
	Header     map[string]string `json:",omitempty"`
}

type hookResponse struct {
	HTTPResponse httpResponse
}

const (
	// rootHeader carries the root from the client (packages/upload/src/tus.ts).
	rootHeader = "Upload-Blake3"
	// verifiedHeader answers a verified upload with its root, as the Node server does.
	verifiedHeader = "Upload-Blake3-Verified"
	// refusedStatus is tus's checksum mismatch status, the one the client adapter acts on.
	refusedStatus = 460
	// refusedCode opens the body of a refusal, in tusd's own error format ("CODE: message").
	refusedCode = "ERR_BLAKE3_VERIFICATION_FAILED"
)

var rootPattern = regexp.MustCompile(`^[0-9a-f]{64}$`)

// sentRoot is the root the finishing request carried, or why it cannot be used. Header names
// are matched without regard to case (tusd hands them canonicalised); a header sent twice is
// refused, whatever its values.
func sentRoot(header map[string][]string) ([]byte, string) {
	var values []string
	for name, v := range header {
		if strings.EqualFold(name, rootHeader) {
			values = append(values, v...)
		}
	}
	switch {
	case len(values) == 0:
		return nil, "the request carried no " + rootHeader + " header"
	case len(values) > 1:
		return nil, rootHeader + " was sent more than once"
	case !rootPattern.MatchString(values[0]):
		return nil, rootHeader + " must be 64 lowercase hex digits"
	}
	root, _ := hex.DecodeString(values[0])
	return root, ""
}

// errUnverifiable is a check that could not be made: tusd is told the hook failed (a 500 and no
// post-finish event), after the upload was removed where it could be.
var errUnverifiable = errors.New("the upload could not be verified")

// preFinish checks a finished upload of tusd's file store: its bytes on disk must hash to the
// root the finishing request sent, compared in constant time. A refused upload is removed (its
// data and its .info file), so a client that asks again finds it gone, and the response is 460
// with a message that never carries the computed hash. A verified upload is answered with its
// root in Upload-Blake3-Verified. Other hooks, and the partial uploads of a concatenation (the
// final upload is checked), pass untouched.
func preFinish(req hookRequest, m mode) (hookResponse, error) {
	upload := req.Event.Upload
	if req.Type != "pre-finish" || upload.IsPartial {
		return hookResponse{}, nil
	}
	path, info := upload.Storage["Path"], upload.Storage["InfoPath"]
	if upload.Storage["Type"] != "filestore" || path == "" || info == "" {
		return hookResponse{}, fmt.Errorf("%w: upload %s is in a store this hook cannot read (%q); it reads tusd's file store", errUnverifiable, upload.ID, upload.Storage["Type"])
	}
	remove := func() error {
		for _, p := range []string{path, info} {
			if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
		}
		return nil
	}
	refuse := func(why string) (hookResponse, error) {
		if err := remove(); err != nil {
			return hookResponse{}, fmt.Errorf("%w: %s, and removing it failed: %v", errUnverifiable, why, err)
		}
		return hookResponse{HTTPResponse: httpResponse{
			StatusCode: refusedStatus,
			Body:       fmt.Sprintf("%s: BLAKE3 verification failed: %s; the upload was discarded\n", refusedCode, why),
			Header:     map[string]string{"Content-Type": "text/plain; charset=utf-8"},
		}}, nil
	}
	sent, malformed := sentRoot(req.Event.HTTPRequest.Header)
	if malformed != "" {
		return refuse(malformed)
	}
	root, err := storedRoot(path, upload.Size, m)
	if err != nil {
		if rmErr := remove(); rmErr != nil {
			err = fmt.Errorf("%v, and removing it failed: %v", err, rmErr)
		}
		return hookResponse{}, fmt.Errorf("%w: %v", errUnverifiable, err)
	}
	if subtle.ConstantTimeCompare(root, sent) != 1 {
		return refuse("the bytes stored do not have the root the client sent")
	}
	return hookResponse{HTTPResponse: httpResponse{Header: map[string]string{verifiedHeader: hex.EncodeToString(sent)}}}, nil
}
