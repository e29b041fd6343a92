package verifyrun

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
	"unicode/utf8"
)

// TailBytes is the largest output tail a receipt keeps (verification-receipts.md §2: 64 KiB).
const TailBytes = 64 << 10

// maxLineBytes bounds one output line as the count parser sees it; a longer line is cut (the
// runners' summary lines are short).
const maxLineBytes = 16 << 10

// recorder consumes the interleaved output stream: it forwards every byte to the caller's
// writer, hashes and counts the stream, keeps the last TailBytes bytes and hands complete lines
// to the count parser. It is used from one goroutine.
type recorder struct {
	sink    io.Writer // the caller's writer, or nil
	sinkErr error     // the first write error of sink; later writes are not attempted
	sum     hash.Hash
	n       int64
	tail    []byte // ring buffer of TailBytes once full
	tailPos int    // next write position once the ring is full
	full    bool
	line    []byte
	lineCut bool
	counter counter
}

func newRecorder(sink io.Writer, c counter) *recorder {
	return &recorder{sink: sink, sum: sha256.New(), tail: make([]byte, 0, 4096), counter: c}
}

// Write records p. It never fails, so the reading loop always drains the pipe: a failing sink
// is remembered and reported by Run after the command ends.
func (r *recorder) Write(p []byte) (int, error) {
	if r.sink != nil && r.sinkErr == nil {
		if _, err := r.sink.Write(p); err != nil {
			r.sinkErr = err
		}
	}
	r.sum.Write(p)
	r.n += int64(len(p))
	r.keepTail(p)
	r.lines(p)
	return len(p), nil
}

func (r *recorder) keepTail(p []byte) {
	if len(p) >= TailBytes {
		r.tail = append(r.tail[:0], p[len(p)-TailBytes:]...)
		r.tailPos, r.full = 0, true
		return
	}
	if !r.full {
		room := TailBytes - len(r.tail)
		if len(p) <= room {
			r.tail = append(r.tail, p...)
			return
		}
		r.tail = append(r.tail, p[:room]...)
		p = p[room:]
		r.full = true
	}
	for len(p) > 0 {
		c := copy(r.tail[r.tailPos:], p)
		p = p[c:]
		r.tailPos = (r.tailPos + c) % TailBytes
	}
}

func (r *recorder) lines(p []byte) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		if room := maxLineBytes - len(r.line); room > 0 {
			if len(chunk) > room {
				chunk, r.lineCut = chunk[:room], true
			}
			r.line = append(r.line, chunk...)
		} else if len(chunk) > 0 {
			r.lineCut = true
		}
		if i < 0 {
			return
		}
		r.flushLine()
		p = p[i+1:]
	}
}

func (r *recorder) flushLine() {
	l := r.line
	if n := len(l); n > 0 && l[n-1] == '\r' {
		l = l[:n-1]
	}
	if r.counter != nil {
		r.counter.line(string(l))
	}
	r.line, r.lineCut = r.line[:0], false
}

// finish flushes a last line without a line feed.
func (r *recorder) finish() {
	if len(r.line) > 0 || r.lineCut {
		r.flushLine()
	}
}

// tailBytes returns the kept tail in stream order. When the stream was longer than the tail, a
// partial UTF-8 sequence at the cut is dropped.
func (r *recorder) tailBytes() []byte {
	var out []byte
	if !r.full {
		out = append(out, r.tail...)
	} else {
		out = append(append(out, r.tail[r.tailPos:]...), r.tail[:r.tailPos]...)
	}
	if r.n > int64(len(out)) {
		for i := 0; i < utf8.UTFMax && len(out) > 0 && !utf8.RuneStart(out[0]); i++ {
			out = out[1:]
		}
	}
	return out
}

func (r *recorder) sha256Hex() string { return hex.EncodeToString(r.sum.Sum(nil)) }
