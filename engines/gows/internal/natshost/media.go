package natshost

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"io"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// sessionStoreToken names a session's object stores: the first 128 bits of the SHA-256 of its
// name in hex (protocol/src/cluster.ts).
func sessionStoreToken(session string) string {
	sum := sha256.Sum256([]byte(session))
	return hex.EncodeToString(sum[:])[:32]
}

// mediaStore keeps the session's files in its object store `sb_media_<token>`, object
// `<session>/<id>`, as engine-pod/src/cluster/nats-media-store.ts does: every gateway replica
// serves them from there.
type mediaStore struct {
	nc      *nats.Conn
	js      jetstream.JetStream
	session string
	baseURL string
	bind    bool

	mu    sync.Mutex
	ready *objects
}

// Media is what an engine gets back for a kept file (the record's `media`).
type Media struct {
	URL      string  `json:"url"`
	Mimetype string  `json:"mimetype"`
	Filename *string `json:"filename"`
}

// bucket binds to the session's media bucket; without credentials, creates it when missing (the
// operator makes it before the pod otherwise).
func (m *mediaStore) bucket(ctx context.Context) (*objects, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ready != nil {
		return m.ready, nil
	}
	bucket := "sb_media_" + sessionStoreToken(m.session)
	if !m.bind {
		if _, err := openObjects(ctx, m.js, bucket, mediaLifetime); err != nil {
			return nil, err
		}
	}
	m.ready = &objects{nc: m.nc, js: m.js, bucket: bucket}
	return m.ready, nil
}

// put keeps a file as it reads it (the engine's spool file), never whole in memory.
func (m *mediaStore) put(ctx context.Context, mimetype, filename string, data io.Reader) (*Media, error) {
	bucket, err := m.bucket(ctx)
	if err != nil {
		return nil, err
	}
	// The bucket's TTL now, as the gateway last set it: that is when JetStream removes the file.
	ttl, err := bucket.ttl(ctx)
	if err != nil {
		return nil, err
	}
	id := newMediaID()
	expiresAt := int64(9007199254740991) // Number.MAX_SAFE_INTEGER: no TTL
	if ttl > 0 {
		expiresAt = time.Now().Add(ttl).UnixMilli()
	}
	metadata := map[string]string{"mimetype": mimetype, "expiresAt": strconv.FormatInt(expiresAt, 10)}
	if filename != "" {
		metadata["filename"] = filename
	}
	if err := bucket.put(ctx, m.session+"/"+id, metadata, data); err != nil {
		return nil, err
	}
	media := &Media{URL: mediaURL(m.baseURL, m.session, id, mimetype, filename), Mimetype: mimetype}
	if filename != "" {
		media.Filename = &filename
	}
	return media, nil
}

// newMediaID: 128 random bits; a media id is its own capability and must not be guessable.
func newMediaID() string {
	var raw [16]byte
	_, _ = rand.Read(raw[:])
	return base64.RawURLEncoding.EncodeToString(raw[:])
}

var fileExtension = regexp.MustCompile(`\.([A-Za-z0-9]{1,16})$`)

// mediaExtensions: the extension mime-types (the Node pod's) gives the types WhatsApp media has.
var mediaExtensions = map[string]string{
	"image/jpeg": "jpeg", "image/png": "png", "image/webp": "webp", "image/gif": "gif",
	"video/mp4": "mp4", "video/3gpp": "3gp", "video/quicktime": "mov",
	"audio/ogg": "oga", "audio/mpeg": "mpga", "audio/mp4": "m4a", "audio/aac": "adts", "audio/wav": "wav",
	"application/pdf": "pdf", "application/zip": "zip", "application/json": "json", "application/octet-stream": "bin",
	"text/plain": "txt", "text/vcard": "vcard", "text/csv": "csv",
}

// mediaURL is `<base>/api/files/<session>/<id>.<ext>` (engine-pod/src/media/media-url.ts): the
// extension is for clients that judge a file by its name; the gateway reads only the id.
func mediaURL(baseURL, session, id, mimetype, filename string) string {
	extension := ""
	if match := fileExtension.FindStringSubmatch(filename); match != nil {
		extension = match[1]
	} else {
		base := mimetype
		if i := bytes.IndexByte([]byte(base), ';'); i >= 0 {
			base = base[:i]
		}
		extension = mediaExtensions[base]
	}
	url := baseURL + "/api/files/" + session + "/" + id
	if extension != "" {
		url += "." + extension
	}
	return url
}
