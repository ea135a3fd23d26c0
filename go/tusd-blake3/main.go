// Command tusd-blake3 is a tusd 2 file hook (pre-finish) that refuses any finished upload whose
// Upload-Blake3 root does not equal the BLAKE3 hash of the bytes tusd stored.
//
//	tusd -upload-dir ./uploads -hooks-dir ./hooks -hooks-enabled-events pre-finish \
//	  -cors-allow-headers Upload-Blake3 -cors-expose-headers Upload-Blake3-Verified
//
// with this program at ./hooks/pre-finish. tusd hands it the hook request on stdin and reads its
// response from stdout; a failure (exit status 1) makes tusd answer 500 and skip post-finish.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

func run(stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	fail := func(err error) int {
		// tusd puts the output of a failed hook in its 500 response: what failed, without the
		// server's paths, which go to tusd's log with the rest.
		if errors.Is(err, errUnverifiable) {
			fmt.Fprintln(stdout, errUnverifiable)
		} else {
			fmt.Fprintln(stdout, "the BLAKE3 hook failed")
		}
		fmt.Fprintln(stderr, "tusd-blake3:", err)
		return 1
	}
	m, err := modeFromEnv(getenv)
	if err != nil {
		return fail(err)
	}
	var req hookRequest
	if err := json.NewDecoder(stdin).Decode(&req); err != nil {
		return fail(fmt.Errorf("the hook request is not tusd's JSON: %v", err))
	}
	res, err := preFinish(req, m)
	if err != nil {
		return fail(err)
	}
	if err := json.NewEncoder(stdout).Encode(res); err != nil {
		return fail(err)
	}
	return 0
}

func main() {
	os.Exit(run(os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}
