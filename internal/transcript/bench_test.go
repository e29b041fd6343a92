package transcript

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// benchBytes is the size of the benchmark transcript (docs/design/transcripts.md §2: bounded
// memory on 200 MB files).
const benchBytes = 200 << 20

var (
	benchOnce sync.Once
	benchDir  string
	benchPath string
	benchRoot string
	benchErr  error
)

// TestMain removes the benchmark transcript once the benchmarks are done.
func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

var toolID = regexp.MustCompile(`toolu_[A-Za-z0-9]+`)

// bigTranscript writes a 200 MB Claude Code transcript: the real session of
// testdata/claude/spotter-gqc.jsonl repeated, each copy with its own tool ids, so that every
// call pairs with its own result.
func bigTranscript(b *testing.B) (path, root string) {
	benchOnce.Do(func() {
		benchDir, benchErr = os.MkdirTemp("", "mastermind-transcript-bench-")
		if benchErr != nil {
			return
		}
		benchRoot = filepath.Join(benchDir, "repo")
		if benchErr = os.MkdirAll(benchRoot, 0o755); benchErr != nil {
			return
		}
		src, err := os.ReadFile(filepath.Join("testdata", "claude", "spotter-gqc.jsonl"))
		if err != nil {
			benchErr = err
			return
		}
		text := strings.ReplaceAll(string(src), rootGQC, benchRoot)
		benchPath = filepath.Join(benchDir, "session.jsonl")
		f, err := os.Create(benchPath)
		if err != nil {
			benchErr = err
			return
		}
		w := bufio.NewWriterSize(f, 1<<20)
		written := 0
		for rep := 0; written < benchBytes; rep++ {
			suffix := fmt.Sprintf("r%d", rep)
			copyText := toolID.ReplaceAllStringFunc(text, func(id string) string { return id + suffix })
			n, _ := w.WriteString(copyText)
			written += n
		}
		if err := w.Flush(); err != nil {
			benchErr = err
		}
		if err := f.Close(); err != nil && benchErr == nil {
			benchErr = err
		}
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchPath, benchRoot
}

// peakHeap samples the heap in use (runtime/metrics: heap objects plus unused heap, which
// stops no goroutine) every few milliseconds while f runs and returns the largest sample, in MiB.
func peakHeap(f func()) float64 {
	runtime.GC()
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}}
		for {
			metrics.Read(samples)
			if v := samples[0].Value.Uint64() + samples[1].Value.Uint64(); v > peak {
				peak = v
			}
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	f()
	close(done)
	wg.Wait()
	return float64(peak) / (1 << 20)
}

// cpuTime is the process's user and system CPU time: on a loaded machine the wall time of a
// benchmark says little, the CPU time it used says what it costs.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N)/1e6, "cpu-ms/op")
}

// BenchmarkRead200MB reads the 200 MB transcript with Read; BenchmarkPlainRead200MB reads the
// same file line by line and discards it. Both report the peak heap in use (peak-heap-MiB).
func BenchmarkRead200MB(b *testing.B) {
	path, root := bigTranscript(b)
	b.SetBytes(benchBytes)
	b.ResetTimer()
	start := cpuTime()
	peak := 0.0
	for i := 0; i < b.N; i++ {
		p := peakHeap(func() {
			s, err := Read(context.Background(), Options{Harness: Claude, Path: path, Root: root})
			if err != nil {
				b.Fatal(err)
			}
			if s.Lookup("mix credo --strict") == nil {
				b.Fatal("no run witnessed")
			}
		})
		peak = max(peak, p)
	}
	b.ReportMetric(peak, "peak-heap-MiB")
	reportCPU(b, start)
}

func BenchmarkPlainRead200MB(b *testing.B) {
	path, _ := bigTranscript(b)
	b.SetBytes(benchBytes)
	b.ResetTimer()
	start := cpuTime()
	peak := 0.0
	for i := 0; i < b.N; i++ {
		p := peakHeap(func() {
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			br := bufio.NewReaderSize(f, 64<<10)
			for {
				_, err := br.ReadSlice('\n')
				if err == io.EOF {
					break
				}
				if err != nil && err != bufio.ErrBufferFull {
					b.Fatal(err)
				}
			}
		})
		peak = max(peak, p)
	}
	b.ReportMetric(peak, "peak-heap-MiB")
	reportCPU(b, start)
}
