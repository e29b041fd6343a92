package store

import (
	"bytes"
	"testing"

	"github.com/mastermind-controller/mastermind/internal/fsx"
)

// FuzzParseRecord: any bytes either fail to parse or give a record that the writer renders and
// the reader accepts again unchanged (the store never writes what it would refuse to read).
func FuzzParseRecord(f *testing.F) {
	r := &Record{RecordVersion: 1, Task: "001-a", TaskDir: "/r/.mastermind/tasks/001-a", State: []byte(`{"iteration":1}`)}
	r.SetMirror("state.json", []byte("v1"))
	r.SetMirror("state.json", []byte("v2"))
	r.Tampered = []Tampering{{File: "audit.md", Expected: fsx.SHA256Hex([]byte("a")), Found: "missing", At: 1}}
	seed, _ := marshalRecord(r)
	f.Add(seed)
	f.Add([]byte(`{"record_version":1,"task":"001-a","task_dir":"","state":{},"mirrors":{},"updated_at":0}`))
	f.Add([]byte(`{"record_version":2}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := ParseRecord(data, "001-a")
		if err != nil {
			return
		}
		out, err := marshalRecord(rec)
		if err != nil {
			if len(data) <= MaxRecordBytes/2 {
				t.Fatalf("a parsed record does not render: %v", err)
			}
			return
		}
		again, err := ParseRecord(out, "001-a")
		if err != nil {
			t.Fatalf("the rendered record does not parse: %v\n%s", err, out)
		}
		out2, _ := marshalRecord(again)
		if !bytes.Equal(out, out2) {
			t.Fatalf("not stable:\n%s\n%s", out, out2)
		}
	})
}
