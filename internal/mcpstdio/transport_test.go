package mcpstdio

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	initLine  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
	notifLine = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// testServer has one slow tool and a resource template whose handler fails without a JSON-RPC
// code, the two server behaviours the transport must cope with.
func testServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "slow", Description: "sleeps"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		time.Sleep(150 * time.Millisecond)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "t://x/{n}", Name: "x"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return nil, errors.New("plain failure")
	})
	return s
}

type reply struct {
	ID    json.RawMessage `json:"id"`
	Error *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Result json.RawMessage `json:"result"`
}

// serve runs the server over in until its end and returns every line it wrote, decoded.
func serve(t *testing.T, in io.Reader, maxLine int) []reply {
	t.Helper()
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := testServer().Run(ctx, &Transport{In: in, Out: &out, MaxLine: maxLine}); err != nil {
		t.Fatalf("Run: %v (the session must survive its input)", err)
	}
	var rs []reply
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r reply
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("server wrote a line that is not JSON: %q", l)
		}
		rs = append(rs, r)
	}
	return rs
}

func byID(rs []reply, id string) *reply {
	for i := range rs {
		if string(rs[i].ID) == id {
			return &rs[i]
		}
	}
	return nil
}

func TestMalformedLinesAreAnsweredAndTheSessionGoesOn(t *testing.T) {
	for _, c := range []struct {
		name, line string
		code       int64
		id         string // the id the error reply carries, "" for none
	}{
		{"not JSON", `{bad json`, -32700, ""},
		{"truncated", `{"jsonrpc":"2.0","id":7,"method":"ping"`, -32700, ""},
		{"no jsonrpc", `{"id":7,"method":"ping"}`, -32600, "7"},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":"a","method":"ping"}`, -32600, `"a"`},
		{"batch", `[{"jsonrpc":"2.0","id":7,"method":"ping"}]`, -32600, ""},
		{"empty batch", `[]`, -32600, ""},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600, ""},
		{"array id", `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, -32600, ""},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, -32600, ""},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600, ""},
		{"huge id", `{"jsonrpc":"2.0","id":18014398509481985,"method":"ping"}`, -32600, ""},
		{"bool id", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, -32600, ""},
		{"method not a string", `{"jsonrpc":"2.0","id":7,"method":5}`, -32600, "7"},
		{"params a string", `{"jsonrpc":"2.0","id":7,"method":"ping","params":"x"}`, -32600, "7"},
		{"neither request nor response", `{"jsonrpc":"2.0","id":7}`, -32600, "7"},
		{"a number", `42`, -32600, ""},
		{"a string", `"ping"`, -32600, ""},
		{"null", `null`, -32600, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := strings.Join([]string{initLine, notifLine, c.line, `{"jsonrpc":"2.0","id":99,"method":"ping"}`}, "\n") + "\n"
			rs := serve(t, strings.NewReader(in), 0)
			var errs []reply
			for _, r := range rs {
				if r.Error != nil {
					errs = append(errs, r)
				}
			}
			if len(errs) != 1 || errs[0].Error.Code != c.code || string(errs[0].ID) != c.id {
				t.Fatalf("want one error %d with id %s, got %+v", c.code, c.id, rs)
			}
			if p := byID(rs, "99"); p == nil || p.Error != nil {
				t.Errorf("the ping after the bad line was not answered: %+v", rs)
			}
		})
	}
}

// A line far over the limit is skipped without being kept, answered, and the next one served.
func TestOverlongLineIsAnsweredAndSkipped(t *testing.T) {
	const limit = 1 << 20
	big := io.MultiReader(
		strings.NewReader(initLine+"\n"+notifLine+"\n"+`{"jsonrpc":"2.0","id":5,"method":"ping","params":{"x":"`),
		io.LimitReader(repeatReader('a'), 100<<20),
		strings.NewReader(`"}}`+"\n"+`{"jsonrpc":"2.0","id":6,"method":"ping"}`+"\n"),
	)
	rs := serve(t, big, limit)
	var tooLong *reply
	for i := range rs {
		if rs[i].Error != nil && rs[i].Error.Code == -32600 && strings.Contains(rs[i].Error.Message, fmt.Sprint(limit)) {
			tooLong = &rs[i]
		}
	}
	if tooLong == nil || tooLong.ID != nil {
		t.Fatalf("no Invalid Request naming the limit: %+v", rs)
	}
	if byID(rs, "5") != nil {
		t.Errorf("the overlong request was served")
	}
	if p := byID(rs, "6"); p == nil || p.Error != nil {
		t.Errorf("the request after the overlong line was not served: %+v", rs)
	}
	// Exactly at the limit is fine (CRLF endings too).
	line := `{"jsonrpc":"2.0","id":8,"method":"ping","params":{"x":"` + strings.Repeat("b", 100) + `"}}`
	rs = serve(t, strings.NewReader(initLine+"\r\n"+line+"\r\n"), len(line))
	if p := byID(rs, "8"); p == nil || p.Error != nil {
		t.Errorf("a line of exactly the limit was refused: %+v", rs)
	}
}

type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// The end of input waits for the replies of every request already read (a slow tool call
// included), run after run.
func TestEndOfInputAnswersEveryRequestRead(t *testing.T) {
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{}}}`
	list := `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`
	for i := 0; i < 20; i++ {
		rs := serve(t, strings.NewReader(initLine+"\n"+notifLine+"\n"+call+"\n"+list), 0)
		for _, id := range []string{"1", "2", "3"} {
			if r := byID(rs, id); r == nil || r.Error != nil {
				t.Fatalf("run %d: reply %s missing or an error: %+v", i, id, rs)
			}
		}
	}
}

// A call before initialize, and an error the server gives without a code, get JSON-RPC codes.
func TestErrorRepliesHaveCodes(t *testing.T) {
	rs := serve(t, strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`+"\n"), 0)
	if r := byID(rs, "2"); r == nil || r.Error == nil || r.Error.Code != -32600 {
		t.Errorf("tools/list before initialize: want -32600, got %+v", rs)
	}
	read := `{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"t://x/1"}}`
	rs = serve(t, strings.NewReader(initLine+"\n"+notifLine+"\n"+read+"\n"), 0)
	if r := byID(rs, "3"); r == nil || r.Error == nil || r.Error.Code != -32603 || r.Error.Message != "plain failure" {
		t.Errorf("a plain handler error: want -32603 with its message, got %+v", rs)
	}
}

// A second request with the id of one still in flight is refused; the first is answered once.
func TestDuplicateInFlightIDIsRefused(t *testing.T) {
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{}}}`
	rs := serve(t, strings.NewReader(initLine+"\n"+notifLine+"\n"+call+"\n"+call+"\n"), 0)
	n, refused := 0, 0
	for _, r := range rs {
		if string(r.ID) == "2" {
			n++
		}
		if r.Error != nil && r.Error.Code == -32600 && r.ID == nil {
			refused++
		}
	}
	if n != 1 || refused != 1 {
		t.Errorf("want one reply for id 2 and one refusal without an id, got %+v", rs)
	}
}
