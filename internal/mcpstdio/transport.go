// Package mcpstdio is the stdio transport of `mastermind mcp`: newline-delimited JSON-RPC 2.0
// behind the go-sdk's Transport interface. Unlike the SDK's IOTransport it answers a malformed
// line itself, bounds a line's length and answers every request read before the end of input
// (integrations.md §3).
package mcpstdio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxLine is the line limit when Transport.MaxLine is 0.
const DefaultMaxLine = 8 << 20

// Transport connects an MCP server to In and Out. It is used for one Connect.
type Transport struct {
	In  io.Reader
	Out io.Writer
	// MaxLine bounds one inbound message in bytes, its newline excluded; 0 is DefaultMaxLine. A
	// longer line is answered with an Invalid Request error and skipped without being kept.
	MaxLine int
}

// Connect implements mcp.Transport.
func (t *Transport) Connect(context.Context) (mcp.Connection, error) {
	limit := t.MaxLine
	if limit <= 0 {
		limit = DefaultMaxLine
	}
	c := &conn{
		out:      t.Out,
		incoming: make(chan jsonrpc.Message),
		readDone: make(chan struct{}),
		closed:   make(chan struct{}),
		pending:  map[jsonrpc.ID]string{},
	}
	go c.readLoop(t.In, limit)
	return c, nil
}

// conn is one session's connection. pending holds the calls read and not yet answered, so that
// the end of input waits for their replies instead of dropping them.
type conn struct {
	out      io.Writer
	incoming chan jsonrpc.Message
	readDone chan struct{} // closed when the reader has delivered its last message
	readErr  error         // io.EOF or the read error; set before readDone is closed
	closed   chan struct{}
	once     sync.Once

	writeMu sync.Mutex

	mu      sync.Mutex
	pending map[jsonrpc.ID]string // call id → method
	drained chan struct{}         // closed when pending becomes empty, once a waiter asked
	initOK  bool                  // an initialize call was answered without an error
}

func (c *conn) SessionID() string { return "" }

// Read returns the next message. At the end of input it waits until every call already read has
// been answered, then returns io.EOF (or the read error).
func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-c.incoming:
		return m, nil
	case <-c.readDone:
	case <-c.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	c.mu.Lock()
	var wait chan struct{}
	if len(c.pending) > 0 {
		if c.drained == nil {
			c.drained = make(chan struct{})
		}
		wait = c.drained
	}
	c.mu.Unlock()
	if wait != nil {
		select {
		case <-wait:
		case <-c.closed:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return nil, c.readErr
}

// Write writes one message as a line. A reply to a call is checked off the pending set; an error
// reply without a JSON-RPC code gets one (see errorCode).
func (c *conn) Write(_ context.Context, msg jsonrpc.Message) error {
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		method, known := c.pending[resp.ID]
		if known {
			delete(c.pending, resp.ID)
			if method == "initialize" && resp.Error == nil {
				c.initOK = true
			}
		}
		if resp.Error != nil {
			if code := errorCode(resp.Error, method, c.initOK); code != 0 {
				copied := *resp
				copied.Error = &jsonrpc.Error{Code: code, Message: resp.Error.Error()}
				msg = &copied
			}
		}
		if known && len(c.pending) == 0 && c.drained != nil {
			close(c.drained)
			c.drained = nil
		}
		c.mu.Unlock()
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	return c.writeLine(data)
}

// errorCode is the code to give an error reply that has none, since 0 is no JSON-RPC error code:
// Invalid Request for a call the SDK refused before any initialize succeeded, Internal error
// otherwise, and 0 when the error already carries a code.
func errorCode(err error, method string, initOK bool) int64 {
	var we *jsonrpc.Error
	if errors.As(err, &we) && we.Code != 0 {
		return 0
	}
	if method != "initialize" && !initOK {
		return jsonrpc.CodeInvalidRequest
	}
	return jsonrpc.CodeInternalError
}

func (c *conn) writeLine(data []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	select {
	case <-c.closed:
		return mcp.ErrConnectionClosed
	default:
	}
	buf := make([]byte, 0, len(data)+1)
	buf = append(append(buf, data...), '\n')
	_, err := c.out.Write(buf)
	return err
}

func (c *conn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

// readLoop reads lines until the end of input, answers those that are not a JSON-RPC message
// the server can take, and hands the others to Read.
func (c *conn) readLoop(in io.Reader, limit int) {
	r := bufio.NewReaderSize(in, 64<<10)
	var line []byte
	for {
		var err error
		var tooLong bool
		line, tooLong, err = readLine(r, line[:0], limit)
		if tooLong {
			c.reply(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: the message is longer than %d bytes, the server's line limit; it was skipped unread", limit))
		} else if len(bytes.TrimSpace(line)) > 0 {
			if m := c.accept(line); m != nil {
				select {
				case c.incoming <- m:
				case <-c.closed:
					return
				}
			}
		}
		if err != nil {
			c.readErr = err
			close(c.readDone)
			return
		}
	}
}

// readLine appends the next line of r to buf without its line ending. A line longer than limit is
// read to its end and dropped with tooLong true. At the end of input err is io.EOF, with any last
// line without a newline in buf.
func readLine(r *bufio.Reader, buf []byte, limit int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > limit+2 { // the line ending may be \r\n
				tooLong, buf = true, buf[:0]
			} else {
				buf = append(buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		buf = bytes.TrimSuffix(buf, []byte("\n"))
		buf = bytes.TrimSuffix(buf, []byte("\r"))
		if !tooLong && len(buf) > limit {
			tooLong, buf = true, buf[:0]
		}
		return buf, tooLong, err
	}
}

// accept checks one line and returns the message to hand to the server, or nil after answering
// the line itself: -32700 for text that is not JSON, -32600 for JSON that is not a JSON-RPC 2.0
// message MCP allows, a batch or a call id already in flight among them.
func (c *conn) accept(line []byte) jsonrpc.Message {
	line = bytes.TrimPrefix(bytes.TrimSpace(line), []byte("\xef\xbb\xbf"))
	if !json.Valid(line) {
		var v any
		detail := "not valid JSON"
		if err := json.Unmarshal(line, &v); err != nil {
			detail = err.Error()
		}
		c.reply(nil, jsonrpc.CodeParseError, "Parse error: "+detail)
		return nil
	}
	switch line[0] {
	case '{':
	case '[':
		c.reply(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: JSON-RPC batches are not supported (MCP 2025-06-18 removed them); send one message per line")
		return nil
	default:
		c.reply(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: a message must be a JSON object")
		return nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil {
		c.reply(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: "+err.Error())
		return nil
	}
	rawID, hasID := fields["id"]
	idOK := validID(rawID)
	echo := json.RawMessage(nil)
	if hasID && idOK {
		echo = rawID
	}
	invalid := func(msg string) jsonrpc.Message {
		c.reply(echo, jsonrpc.CodeInvalidRequest, "Invalid Request: "+msg)
		return nil
	}
	if v, ok := fields["jsonrpc"]; !ok || string(bytes.TrimSpace(v)) != `"2.0"` {
		return invalid(`"jsonrpc" must be "2.0"`)
	}
	rawMethod, isRequest := fields["method"]
	_, hasResult := fields["result"]
	_, hasError := fields["error"]
	switch {
	case isRequest:
		var method string
		if json.Unmarshal(rawMethod, &method) != nil {
			return invalid(`"method" must be a string`)
		}
		if p, ok := fields["params"]; ok {
			if t := bytes.TrimSpace(p); t[0] != '{' && t[0] != '[' && string(t) != "null" {
				return invalid(`"params" must be an object`)
			}
		}
	case !hasResult && !hasError:
		return invalid(`a message needs "method" (a request or notification) or "result" or "error" (a response)`)
	}
	if hasID && !idOK {
		echo = nil
		return invalid(`"id" must be a string or an integer (of at most 53 bits)`)
	}
	if !isRequest && !hasID {
		return invalid(`a response needs the "id" of its request`)
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return invalid(err.Error())
	}
	if req, ok := msg.(*jsonrpc.Request); ok && hasID {
		c.mu.Lock()
		_, dup := c.pending[req.ID]
		if !dup {
			c.pending[req.ID] = req.Method
		}
		c.mu.Unlock()
		if dup {
			echo = nil
			return invalid("the id is already used by a request in flight")
		}
	}
	return msg
}

// validID reports whether raw is an MCP request id: a string, or an integer of at most 53 bits,
// since the SDK reads ids as float64. MCP forbids null.
func validID(raw json.RawMessage) bool {
	if len(raw) == 0 {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return false
	}
	switch v := v.(type) {
	case string:
		return true
	case json.Number:
		n, err := v.Int64()
		return err == nil && n >= -(1<<53) && n <= 1<<53
	}
	return false
}

// reply writes the transport's own error response. id is the request's id as sent, or nil when
// it could not be read; the reply then has no id, as MCP allows, never a null one.
func (c *conn) reply(id json.RawMessage, code int64, message string) {
	data, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id,omitempty"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: message}})
	if err != nil {
		return
	}
	_ = c.writeLine(data)
}
