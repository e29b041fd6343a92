//go:build cgo

package claims

import (
	"testing"
)

func runCases(t *testing.T, r repo, cases []tsCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			if got := verifyOne(t, r, tt.claim); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

const pyBase = `import os


class Client:
    def get(self, url):
        return url


def helper(x):
    return x
`

const pyCur = `import os
import pkg.retry as r
from pkg import transport
import pkg.backoff


class Client:
    def get(self, url):
        return self.send(url)

    async def send(self, url: str) -> bytes:
        def inner(y):
            return transport.post(y)
        return inner(url)


class Server:
    def send(self, data):
        pass

    @staticmethod
    def build(
        host,
        port=80,
    ) -> "Server":
        return Server()


def helper(x):
    return x


def fresh(a, b=2, *args, **kw) -> int:
    client = Client()
    client.send("u")
    cb = helper
    return r.retry(cb)


def uses_backoff():
    pkg.backoff.wait(1)
    s = Server()
    s.post("x")


LIMIT = 3
`

const pyTransport = `def post(body):
    return body


def retry(fn):
    return fn()


def wait(n):
    pass
`

func TestPython(t *testing.T) {
	r := repo{
		base: map[string]string{"app/client.py": pyBase, "pkg/transport.py": pyTransport, "bad.py": "def broken(:\n"},
		cur: map[string]string{"app/client.py": pyCur, "pkg/transport.py": pyTransport, "pkg/retry.py": "def retry(fn):\n    return fn()\n",
			"pkg/backoff.py": "def wait(n):\n    pass\n", "bad.py": "def ok():\n    pass\n"},
	}
	runCases(t, r, []tsCase{
		{"added function", fa("fresh", "signature=def fresh(a, b=2, *args, **kw) -> int"), "verified added_declaration app/client.py:33 b0"},
		{"module-qualified", fa("client.fresh"), "verified added_declaration app/client.py:33 b0"},
		{"edited method not added", fa("Client.get"), "failed claimed_symbol_not_added: claimed function Client.get already exists at the baseline; it was not added by this task"},
		{"edited function not added", fa("helper", "file=app/client.py"), "failed claimed_symbol_not_added: claimed function helper already exists at the baseline; it was not added by this task"},
		{"same-name methods ambiguous", fa("send"), "unresolved ambiguous 2"},
		{"qualified method", fa("Server.send"), "verified added_declaration app/client.py:18 b0"},
		{"async method signature", fa("Client.send", "signature=async def send(self, url: str) -> bytes"), "verified added_declaration app/client.py:11 b0"},
		{"decorated, multi-line signature", fa("Server.build", `signature=def build( host, port=80, ) -> "Server"`), "verified added_declaration app/client.py:22 b0"},
		{"nested function", fa("Client.send.inner"), "verified added_declaration app/client.py:12 b0"},
		{"nested function bare", fa("inner"), "verified added_declaration app/client.py:12 b0"},
		{"signature mismatch", fa("fresh", "signature=def fresh(a, b)"), `failed claimed_signature_mismatch: claimed signature "def fresh(a, b)" of fresh differs from the source: "def fresh(a, b=2, *args, **kw) -> int"`},
		{"class is not a function", fa("Server"), "unresolved claim_kind_mismatch"},
		{"variable is not a function", fa("LIMIT"), "unresolved claim_kind_mismatch"},
		{"unparsable baseline", fa("ok"), "unresolved baseline_parse_failed"},
		{"method call", ig("fresh", "Client.send"), "verified compatible_call_candidate app/client.py:35 -> app/client.py:11 method_name"},
		{"function value passed, not called", ig("fresh", "helper"), "failed missing_call_edge: no call from fresh to helper was found"},
		{"alias module call", ig("fresh", "retry", "to_file=pkg/retry.py"), "verified compatible_call_candidate app/client.py:37 -> pkg/retry.py:1 import"},
		{"call in nested function via from-import", ig("Client.send", "post"), "verified compatible_call_candidate app/client.py:13 -> pkg/transport.py:1 import"},
		{"dotted module call", ig("uses_backoff", "backoff.wait"), "verified compatible_call_candidate app/client.py:41 -> pkg/backoff.py:1 import"},
		{"member call does not bind to a free function", ig("uses_backoff", "post"), "failed missing_call_edge: no call from uses_backoff to post was found"},
		{"bare call", ig("Client.send", "inner"), "verified compatible_call_candidate app/client.py:14 -> app/client.py:12 name"},
		{"target ambiguous", ig("fresh", "retry"), "unresolved call_target_ambiguous 2"},
		{"hallucinated", ig("fresh", "nope"), "failed hallucinated_symbol: integration target nope does not exist"},
	})
}

const jsCur = `import * as net from "./net.js";
import { format as fmt } from "./fmt.js";
const util = require("./util");

export class Cache {
  constructor(size) {
    this.size = size;
  }

  get(key) {
    return net.fetch(key);
  }
}

export function load(key) {
  const c = new Cache(1);
  c.get(key);
  util.log(key);
  return [key].map(fmt);
}

export const save = async (key, value) => {
  await fmt(value);
};

const LIMIT = 10;
`

func TestJavaScript(t *testing.T) {
	r := repo{
		base: map[string]string{"src/net.js": "export function fetch(k) { return k; }\n"},
		cur: map[string]string{"src/cache.js": jsCur, "src/net.js": "export function fetch(k) { return k; }\n",
			"src/fmt.js": "export function format(v) { return v; }\n", "src/util.js": "function log(m) {}\nmodule.exports = { log };\n"},
	}
	runCases(t, r, []tsCase{
		{"class method", fa("Cache.get", "signature=get(key)"), "verified added_declaration src/cache.js:10 b0"},
		{"constructor", fa("Cache.constructor"), "verified added_declaration src/cache.js:6 b0"},
		{"exported function", fa("load", "signature=function load(key)"), "verified added_declaration src/cache.js:15 b0"},
		{"arrow function", fa("save", "signature=save = async (key, value) =>"), "verified added_declaration src/cache.js:22 b0"},
		{"constant", fa("LIMIT"), "unresolved claim_kind_mismatch"},
		{"class", fa("Cache"), "unresolved claim_kind_mismatch"},
		{"edited, not added", fa("fetch", "file=src/net.js"), "failed claimed_symbol_not_added: claimed function fetch already exists at the baseline; it was not added by this task"},
		{"namespace import call", ig("Cache.get", "fetch"), "verified compatible_call_candidate src/cache.js:11 -> src/net.js:1 import"},
		{"require alias call", ig("load", "log"), "verified compatible_call_candidate src/cache.js:18 -> src/util.js:1 import"},
		{"method call", ig("load", "Cache.get"), "verified compatible_call_candidate src/cache.js:17 -> src/cache.js:10 method_name"},
		{"passed as value, not called", ig("load", "format"), "failed missing_call_edge: no call from load to format was found"},
		{"renamed import called bare is not the original name", ig("save", "format"), "failed missing_call_edge: no call from save to format was found"},
	})
}

const tsCur = `import { Store } from "./store";

namespace Billing {
  export function total(xs: number[]): number {
    return xs.length;
  }
}

export abstract class Repo<T> {
  abstract find(id: string): T;

  save(item: T): void {
    Billing.total([1]);
  }
}

export function parse(s: string): number;
export function parse(s: number): number;
export function parse(s: any): number {
  return Number(s);
}

interface Shape { area(): number }
`

const tsxCur = `import React from "react";
import { parse } from "./repo";

export function Price({ value }: { value: string }) {
  const n = parse(value);
  return <span onClick={() => send(n)}>{n}</span>;
}

function send(n: number): void {}
`

func TestTypeScript(t *testing.T) {
	r := repo{
		base: map[string]string{},
		cur:  map[string]string{"web/repo.ts": tsCur, "web/price.tsx": tsxCur},
	}
	runCases(t, r, []tsCase{
		{"overloads count once (implementation)", fa("parse", "signature=function parse(s: any): number"), "verified added_declaration web/repo.ts:19 b0"},
		{"namespace function", fa("Billing.total"), "verified added_declaration web/repo.ts:4 b0"},
		{"module-qualified namespace function", fa("repo.Billing.total"), "verified added_declaration web/repo.ts:4 b0"},
		{"abstract method without body is not a declaration", fa("Repo.find"), "failed claimed_symbol_missing: claimed function Repo.find not found"},
		{"generic class method", fa("Repo.save", "signature=save(item: T): void"), "verified added_declaration web/repo.ts:12 b0"},
		{"interface", fa("Shape"), "unresolved claim_kind_mismatch"},
		{"tsx component", fa("Price"), "verified added_declaration web/price.tsx:4 b0"},
		{"tsx calls ts import by name", ig("Price", "parse"), "verified compatible_call_candidate web/price.tsx:5 -> web/repo.ts:19 name"},
		{"call inside JSX closure", ig("Price", "send"), "verified compatible_call_candidate web/price.tsx:6 -> web/price.tsx:9 name"},
		{"namespace-qualified call", ig("Repo.save", "Billing.total"), "verified compatible_call_candidate web/repo.ts:13 -> web/repo.ts:4 import"},
	})
}

const rsCur = `use crate::net::{self, send as transmit};
use std::collections::HashMap;

mod codec {
    pub fn encode(b: &[u8]) -> Vec<u8> {
        b.to_vec()
    }
}

pub struct Client {
    map: HashMap<String, String>,
}

impl<T> Wrapper<T> {
    fn wrap(v: T) -> Self { Wrapper(v) }
}

impl Client {
    pub fn new() -> Self {
        Client { map: HashMap::new() }
    }

    pub fn send(&self, body: &[u8]) -> Result<(), Error> {
        let bytes = codec::encode(body);
        transmit(&bytes);
        net::flush();
        Ok(())
    }
}

pub trait Sink {
    fn put(&mut self, b: u8);
    fn flush(&mut self) {
        self.put(0);
    }
}

fn run() {
    let c = Client::new();
    c.send(b"x").unwrap();
    let f = codec::encode;
    Wrapper::<u8>::wrap(1);
}

const MAX: usize = 3;
`

func TestRust(t *testing.T) {
	r := repo{
		base: map[string]string{"src/lib.rs": "pub struct Client;\nimpl Client {\n    pub fn new() -> Self { Client }\n}\n"},
		cur: map[string]string{"src/lib.rs": rsCur,
			"src/net.rs": "pub fn send(b: &[u8]) {}\npub fn flush() {}\n"},
	}
	runCases(t, r, []tsCase{
		{"edited associated fn", fa("Client::new"), "failed claimed_symbol_not_added: claimed function Client::new already exists at the baseline; it was not added by this task"},
		{"added method", fa("Client::send", "signature=pub fn send(&self, body: &[u8]) -> Result<(), Error>"), "verified added_declaration src/lib.rs:23 b0"},
		{"generic impl", fa("Wrapper::wrap"), "verified added_declaration src/lib.rs:15 b0"},
		{"module function", fa("codec::encode"), "verified added_declaration src/lib.rs:5 b0"},
		{"trait default method", fa("Sink::flush"), "verified added_declaration src/lib.rs:33 b0"},
		{"trait signature without body", fa("put"), "failed claimed_symbol_missing: claimed function put not found"},
		{"struct", fa("Client"), "unresolved claim_kind_mismatch"},
		{"const", fa("MAX"), "unresolved claim_kind_mismatch"},
		{"module path call", ig("Client::send", "codec::encode"), "verified compatible_call_candidate src/lib.rs:24 -> src/lib.rs:5 import"},
		{"use alias called bare is not the original name", ig("Client::send", "net::send"), "failed missing_call_edge: no call from Client::send to net::send was found"},
		{"imported module path call", ig("Client::send", "net::flush"), "verified compatible_call_candidate src/lib.rs:26 -> src/net.rs:2 import"},
		{"associated fn via Type::", ig("run", "Client::new"), "verified compatible_call_candidate src/lib.rs:39 -> src/lib.rs:19 method_name"},
		{"method call", ig("run", "Client::send"), "verified compatible_call_candidate src/lib.rs:40 -> src/lib.rs:23 method_name"},
		{"generic path call", ig("run", "Wrapper::wrap"), "verified compatible_call_candidate src/lib.rs:42 -> src/lib.rs:15 method_name"},
		{"fn value, not called", ig("run", "encode"), "failed missing_call_edge: no call from run to encode was found"},
		{"self method call in trait default", ig("Sink::flush", "Sink::flush"), "failed missing_call_edge: no call from Sink::flush to Sink::flush was found"},
	})
}

func TestCrossLanguage(t *testing.T) {
	r := repo{
		base: map[string]string{},
		cur: map[string]string{"app/main.go": "package main\n\nfunc main() { helper() }\n",
			"tools/helper.py": "def helper():\n    pass\n", "tools/broken.rs": "fn x( {\n"},
	}
	runCases(t, r, []tsCase{
		{"go to python", ig("main", "helper"), "unresolved cross_language_binding_unavailable"},
		{"python file parse error", fa("x", "file=tools/broken.rs"), "unresolved current_parse_failed"},
	})
}
