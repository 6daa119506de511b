package engine

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"

	"go.mau.fi/whatsmeow"

	"github.com/switchboard/engines/gows/internal/hostapi"
)

const (
	mediaMaxBytesVariable = "SWITCHBOARD_MEDIA_MAX_BYTES"
	mediaSpoolVariable    = "SWITCHBOARD_GOWS_MEDIA_SPOOL"
	// defaultMediaMaxBytes is protocol's DEFAULT_MEDIA_MAX_BYTES (protocol/src/media.ts), the Node engines' and the operator's.
	defaultMediaMaxBytes int64 = 100 << 20
	// encryptionOverhead: what a received file's encrypted form has beyond its bytes, AES-CBC's
	// padding (1 to 16 bytes) and the 10-byte MAC, which whatsmeow writes before it decrypts.
	encryptionOverhead = 16 + 10
)

// mediaMaxBytes reads SWITCHBOARD_MEDIA_MAX_BYTES: a positive number of bytes, the default when unset.
func mediaMaxBytes(raw string) (int64, error) {
	if raw == "" {
		return defaultMediaMaxBytes, nil
	}
	n, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%s must be a positive number of bytes, got %q", mediaMaxBytesVariable, raw)
	}
	return n, nil
}

// MediaTooLargeError: a received file over the media limit; nothing of it was kept.
type MediaTooLargeError struct{ Limit int64 }

func (e *MediaTooLargeError) Error() string {
	return fmt.Sprintf("the file is larger than the media limit of %d bytes (%s); it was not kept", e.Limit, mediaMaxBytesVariable)
}

// limitedFile is a spool file that refuses to grow past limit. whatsmeow writes a download to it
// (DownloadToFile), so the download stops there instead of filling the disk. It has only the
// methods whatsmeow.File names, on purpose: an embedded *os.File would bring ReadFrom, which
// io.Copy would use instead of Write, past the limit; and whatsmeow preallocates whatever length
// the server announces for an *os.File, which this is not.
type limitedFile struct {
	file  *os.File
	limit int64
	max   int64
}

var _ whatsmeow.File = (*limitedFile)(nil)

func (f *limitedFile) Write(p []byte) (int, error) {
	offset, err := f.file.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0, err
	}
	if err := f.check(offset, len(p)); err != nil {
		return 0, err
	}
	return f.file.Write(p)
}

func (f *limitedFile) WriteAt(p []byte, offset int64) (int, error) {
	if err := f.check(offset, len(p)); err != nil {
		return 0, err
	}
	return f.file.WriteAt(p, offset)
}

func (f *limitedFile) check(offset int64, n int) error {
	if offset+int64(n) > f.limit {
		return &MediaTooLargeError{Limit: f.max}
	}
	return nil
}

func (f *limitedFile) Read(p []byte) (int, error)                 { return f.file.Read(p) }
func (f *limitedFile) ReadAt(p []byte, offset int64) (int, error) { return f.file.ReadAt(p, offset) }
func (f *limitedFile) Seek(offset int64, whence int) (int64, error) {
	return f.file.Seek(offset, whence)
}
func (f *limitedFile) Truncate(size int64) error  { return f.file.Truncate(size) }
func (f *limitedFile) Stat() (os.FileInfo, error) { return f.file.Stat() }

// spooled downloads a received file into a new file of the spool through download, never into
// memory: one that declares more than the media limit is not downloaded, one that turns out
// larger is cut off. The caller removes the file (keepSpooled does).
func (e *Engine) spooled(declared uint64, download func(whatsmeow.File) error) (string, error) {
	limit := e.cfg.MediaMaxBytes
	if declared > uint64(limit) {
		return "", &MediaTooLargeError{Limit: limit}
	}
	file, err := os.CreateTemp(e.cfg.MediaSpool, "received-*")
	if err != nil {
		return "", fmt.Errorf("could not make a file in the media spool: %w", err)
	}
	err = download(&limitedFile{file: file, limit: limit + encryptionOverhead, max: limit})
	if err == nil {
		var info os.FileInfo
		if info, err = file.Stat(); err == nil && info.Size() > limit {
			err = &MediaTooLargeError{Limit: limit}
		}
	}
	if closeErr := file.Close(); err == nil && closeErr != nil {
		err = fmt.Errorf("could not write the spool file: %w", closeErr)
	}
	if err != nil {
		_ = os.Remove(file.Name())
		return "", err
	}
	return file.Name(), nil
}

// keepSpooled hands a spool file to the host (`media.save` names it; the host streams it into
// the media store), then removes it: the record's `media` object, or nil. An empty mimetype is
// judged from the file's first bytes.
func (e *Engine) keepSpooled(ctx context.Context, mimetype, filename, path string) any {
	defer func() { _ = os.Remove(path) }()
	if mimetype == "" {
		mimetype = sniffMimetype(path)
	}
	media, err := e.host.SaveMedia(ctx, hostapi.SpooledFile{Mimetype: mimetype, Filename: filename, Path: path})
	if err != nil {
		e.log.Warn("the host could not keep a media file", "err", err.Error())
		return nil
	}
	if len(media) == 0 || string(media) == "null" {
		return nil
	}
	return media
}

func sniffMimetype(path string) string {
	file, err := os.Open(path)
	if err != nil {
		return "application/octet-stream"
	}
	defer func() { _ = file.Close() }()
	head := make([]byte, 512)
	n, _ := io.ReadFull(file, head)
	return http.DetectContentType(head[:n])
}

// spoolBytes writes a file the account sends to the spool, for keepSpooled: files never travel
// in the RPC's lines.
func (e *Engine) spoolBytes(data []byte) (string, error) {
	file, err := os.CreateTemp(e.cfg.MediaSpool, "sent-*")
	if err != nil {
		return "", fmt.Errorf("could not make a file in the media spool: %w", err)
	}
	_, err = file.Write(data)
	if closeErr := file.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		_ = os.Remove(file.Name())
		return "", fmt.Errorf("could not write the spool file: %w", err)
	}
	return file.Name(), nil
}
