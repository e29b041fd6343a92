package gitscope

import (
	"bytes"
	"strings"
	"testing"
)

// TestNulReaderRecordsLongerThanItsBuffer: a record longer than the reader's buffer (a path of
// 300 KiB) comes back whole, and the records around it are unchanged.
func TestNulReaderRecordsLongerThanItsBuffer(t *testing.T) {
	long := strings.Repeat("d/", 150<<10)
	var total int64
	nr := newNulReader(bytes.NewReader([]byte("a\x00"+long+"\x00b\x00")), &total)
	for i, want := range []string{"a", long, "b"} {
		got, err := nr.next()
		if err != nil || string(got) != want {
			t.Fatalf("record %d: %d bytes, err %v; want %d bytes", i, len(got), err, len(want))
		}
	}
	if _, err := nr.next(); err == nil {
		t.Fatal("no end after the last record")
	}
	if total != int64(len(long)+5) {
		t.Errorf("path bytes counted %d, want %d", total, len(long)+5)
	}
}
