//go:build cgo && linux

package claims

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"testing"
)

// residentBytes is the process's resident set size from /proc/self/statm.
func residentBytes(t *testing.T) int64 {
	t.Helper()
	runtime.GC()
	debug.FreeOSMemory()
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Skipf("no /proc/self/statm: %v", err)
	}
	var size, rss int64
	if _, err := fmt.Sscan(string(bytes.TrimSpace(b)), &size, &rss); err != nil {
		t.Fatalf("statm %q: %v", b, err)
	}
	return rss * int64(os.Getpagesize())
}

// The official binding has no finalizers: a parser, tree or cursor that is not closed keeps its C
// memory for the life of the process. Parsing the same files many times must therefore leave the
// resident set flat. One leaked tree of these 8 KB files is tens of KB, so the 1,200 parses below
// would leak well over the 16 MiB allowed; Go garbage is collected before each measurement.
func TestTreeSitterParsesFreeNativeMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("memory check parses 1,200 files")
	}
	type input struct {
		parse parseFunc
		path  string
		src   []byte
	}
	var inputs []input
	for i, l := range tsBenchLangs {
		src, changed, _ := tsBenchRepo(i)
		p := changed[0].Path
		lang, sup, _, _ := langOf(p)
		if !sup {
			t.Fatalf("%s: no backend in a cgo build", l.name)
		}
		inputs = append(inputs, input{backends[lang].parse, p, []byte(src.cur[p])})
	}
	round := func() {
		for _, in := range inputs {
			if _, err := in.parse(in.path, in.src); err != nil {
				t.Fatalf("parse %s: %v", in.path, err)
			}
		}
	}
	for range 20 { // warm the allocator and the Go heap
		round()
	}
	before := residentBytes(t)
	for range 200 {
		round()
	}
	after := residentBytes(t)
	t.Logf("resident set %d KiB before, %d KiB after %d parses", before>>10, after>>10, 200*len(inputs))
	if grew := after - before; grew > 16<<20 {
		t.Errorf("resident set grew by %d KiB over %d parses: native memory is not freed", grew>>10, 200*len(inputs))
	}
}
