package engine

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"go.mau.fi/whatsmeow"
)

func spoolEngine(t *testing.T, limit int64) *Engine {
	t.Helper()
	return &Engine{cfg: Config{MediaMaxBytes: limit, MediaSpool: t.TempDir()}}
}

func spoolFiles(t *testing.T, e *Engine) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(e.cfg.MediaSpool, "*"))
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// A download writes as whatsmeow does: the encrypted file through Write, then in place through WriteAt and Truncate.
func writing(data []byte) func(whatsmeow.File) error {
	return func(file whatsmeow.File) error {
		if _, err := io.Copy(file, bytes.NewReader(data)); err != nil {
			return err
		}
		_, err := file.WriteAt(data[:1], 0)
		return err
	}
}

type countingReader struct {
	r    io.Reader
	read int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.read += n
	return n, err
}

func TestSpooledKeepsAFileUpToTheLimitByteForByte(t *testing.T) {
	e := spoolEngine(t, 1000)
	data := bytes.Repeat([]byte{7}, 1000)
	path, err := e.spooled(1000, writing(data))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, data) {
		t.Errorf("spool file: %d bytes, err %v; want the 1000 written", len(got), err)
	}
}

func TestSpooledStopsAFileOverTheLimitAndKeepsNothing(t *testing.T) {
	e := spoolEngine(t, 1000)
	// Larger than the limit and its encryption overhead, copied as whatsmeow copies a download
	// (io.Copy from a TeeReader): the write past the limit fails, so the download stops there.
	body := &countingReader{r: bytes.NewReader(make([]byte, 1_000_000))}
	_, err := e.spooled(0, func(file whatsmeow.File) error {
		_, err := io.Copy(file, io.TeeReader(body, sha256.New()))
		return err
	})
	var tooLarge *MediaTooLargeError
	if !errors.As(err, &tooLarge) || tooLarge.Limit != 1000 {
		t.Fatalf("got %v, want a MediaTooLargeError of 1000", err)
	}
	// io.Copy reads 32 KiB at a time: one read past the limit, not the million bytes.
	if body.read > 32*1024 {
		t.Errorf("%d bytes of the download were read for a limit of 1000", body.read)
	}
	// Within the overhead but larger once decrypted: refused too.
	_, err = e.spooled(0, writing(bytes.Repeat([]byte{1}, 1010)))
	if !errors.As(err, &tooLarge) {
		t.Errorf("a 1010-byte file under a 1000-byte limit: got %v", err)
	}
	if files := spoolFiles(t, e); len(files) != 0 {
		t.Errorf("files left in the spool: %v", files)
	}
}

func TestSpooledDoesNotDownloadAFileThatDeclaresMoreThanTheLimit(t *testing.T) {
	e := spoolEngine(t, 1000)
	called := false
	_, err := e.spooled(1001, func(whatsmeow.File) error { called = true; return nil })
	var tooLarge *MediaTooLargeError
	if !errors.As(err, &tooLarge) || called {
		t.Errorf("got %v, download called %v; want a MediaTooLargeError before any download", err, called)
	}
	if got := err.Error(); got != "the file is larger than the media limit of 1000 bytes (SWITCHBOARD_MEDIA_MAX_BYTES); it was not kept" {
		t.Errorf("message %q", got)
	}
}

func TestMediaMaxBytesVariable(t *testing.T) {
	for raw, want := range map[string]int64{"": defaultMediaMaxBytes, "1": 1, "104857600": 100 << 20} {
		if got, err := mediaMaxBytes(raw); err != nil || got != want {
			t.Errorf("%q: got %d, %v; want %d", raw, got, err, want)
		}
	}
	for _, raw := range []string{"0", "-5", "1e6", "lots"} {
		if _, err := mediaMaxBytes(raw); err == nil {
			t.Errorf("%q: accepted", raw)
		}
	}
	cfg, err := readConfig(func(name string) string { return map[string]string{"SWITCHBOARD_MEDIA_MAX_BYTES": "x"}[name] })
	if err == nil || err.Error() != `SWITCHBOARD_MEDIA_MAX_BYTES must be a positive number of bytes, got "x"` {
		t.Errorf("readConfig: %+v, %v", cfg, err)
	}
}
