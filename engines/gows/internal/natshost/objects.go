package natshost

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"
)

// objects is one of the session's object stores as an engine pod may reach it under its NATS
// permissions: the stream's info, publishes to the bucket's subjects, and reads by
// STREAM.MSG.GET (the buckets allow direct gets, which nats.go's ObjectStore then uses, but an
// engine pod's user may not). The messages are the object store's own (ADR-20), as nats.js and
// nats.go write and read them.
type objects struct {
	nc     *nats.Conn
	js     jetstream.JetStream
	bucket string
}

const chunkSize = 128 * 1024

func (o *objects) stream() string { return "OBJ_" + o.bucket }
func (o *objects) metaSubject(name string) string {
	return "$O." + o.bucket + ".M." + base64.URLEncoding.EncodeToString([]byte(name))
}

// ttl is the bucket's max age: how long a file written now is kept.
func (o *objects) ttl(ctx context.Context) (time.Duration, error) {
	reply, err := o.nc.RequestWithContext(ctx, "$JS.API.STREAM.INFO."+o.stream(), nil)
	if err != nil {
		return 0, err
	}
	var info struct {
		Config struct {
			MaxAge int64 `json:"max_age"`
		} `json:"config"`
		Error *apiError `json:"error"`
	}
	if err := json.Unmarshal(reply.Data, &info); err != nil {
		return 0, err
	}
	if info.Error != nil {
		return 0, info.Error
	}
	return time.Duration(info.Config.MaxAge), nil
}

type apiError struct {
	Code        int    `json:"code"`
	ErrCode     int    `json:"err_code"`
	Description string `json:"description"`
}

func (e *apiError) Error() string { return fmt.Sprintf("JetStream %d: %s", e.ErrCode, e.Description) }

// put writes one object as it reads it, a chunk at a time (each published and acknowledged before
// the next is read, so a file is never held whole): its chunks, then its info on the meta subject
// (rolled up). When reading fails, the chunks written are purged and nothing is kept.
func (o *objects) put(ctx context.Context, name string, metadata map[string]string, data io.Reader) error {
	id := nuid.Next()
	chunkSubject := "$O." + o.bucket + ".C." + id
	digest := sha256.New()
	chunks := 0
	size := 0
	buffer := make([]byte, chunkSize)
	for {
		n, err := io.ReadFull(data, buffer)
		if n > 0 {
			digest.Write(buffer[:n])
			if _, perr := o.js.Publish(ctx, chunkSubject, buffer[:n]); perr != nil {
				o.purge(ctx, chunkSubject)
				return perr
			}
			chunks++
			size += n
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			o.purge(ctx, chunkSubject)
			return fmt.Errorf("object %s: %w", name, err)
		}
	}
	info := jetstream.ObjectInfo{
		ObjectMeta: jetstream.ObjectMeta{Name: name, Metadata: metadata, Opts: &jetstream.ObjectMetaOptions{ChunkSize: chunkSize}},
		Bucket:     o.bucket, NUID: id, Size: uint64(size), Chunks: uint32(chunks), ModTime: time.Now().UTC(),
		Digest: "SHA-256=" + base64.URLEncoding.EncodeToString(digest.Sum(nil)),
	}
	raw, err := json.Marshal(info)
	if err != nil {
		return err
	}
	_, err = o.js.PublishMsg(ctx, &nats.Msg{Subject: o.metaSubject(name), Data: raw, Header: nats.Header{"Nats-Rollup": []string{"sub"}}})
	return err
}

// purge removes an object's chunks (best effort: the bucket's TTL removes whatever it misses).
func (o *objects) purge(ctx context.Context, chunkSubject string) {
	body, _ := json.Marshal(map[string]any{"filter": chunkSubject})
	_, _ = o.nc.RequestWithContext(ctx, "$JS.API.STREAM.PURGE."+o.stream(), body)
}

var errNoObject = errors.New("no such object")

type storedMsg struct {
	Subject string `json:"subject"`
	Seq     uint64 `json:"seq"`
	Data    []byte `json:"data"`
}

func (o *objects) getMsg(ctx context.Context, request map[string]any) (*storedMsg, error) {
	body, _ := json.Marshal(request)
	reply, err := o.nc.RequestWithContext(ctx, "$JS.API.STREAM.MSG.GET."+o.stream(), body)
	if err != nil {
		return nil, err
	}
	var answer struct {
		Message *storedMsg `json:"message"`
		Error   *apiError  `json:"error"`
	}
	if err := json.Unmarshal(reply.Data, &answer); err != nil {
		return nil, err
	}
	if answer.Error != nil {
		if answer.Error.Code == 404 {
			return nil, errNoObject
		}
		return nil, answer.Error
	}
	return answer.Message, nil
}

// take reads one object whole, then deletes it (its chunks purged, its info marked deleted).
func (o *objects) take(ctx context.Context, name string) ([]byte, error) {
	meta, err := o.getMsg(ctx, map[string]any{"last_by_subj": o.metaSubject(name)})
	if err != nil {
		return nil, err
	}
	var info jetstream.ObjectInfo
	if err := json.Unmarshal(meta.Data, &info); err != nil {
		return nil, err
	}
	if info.Deleted {
		return nil, errNoObject
	}
	chunkSubject := "$O." + o.bucket + ".C." + info.NUID
	data := make([]byte, 0, info.Size)
	next := uint64(1)
	for i := uint32(0); i < info.Chunks; i++ {
		chunk, err := o.getMsg(ctx, map[string]any{"seq": next, "next_by_subj": chunkSubject})
		if err != nil {
			return nil, err
		}
		data = append(data, chunk.Data...)
		next = chunk.Seq + 1
	}
	if uint64(len(data)) != info.Size {
		return nil, fmt.Errorf("object %s: read %d bytes of %d", name, len(data), info.Size)
	}
	o.remove(ctx, info, chunkSubject)
	return data, nil
}

// remove is best effort: the bucket's TTL removes whatever it misses.
func (o *objects) remove(ctx context.Context, info jetstream.ObjectInfo, chunkSubject string) {
	o.purge(ctx, chunkSubject)
	info.Deleted, info.Size, info.Chunks, info.Digest = true, 0, 0, ""
	raw, _ := json.Marshal(info)
	_, _ = o.js.PublishMsg(ctx, &nats.Msg{Subject: o.metaSubject(info.Name), Data: raw, Header: nats.Header{"Nats-Rollup": []string{"sub"}}})
}
