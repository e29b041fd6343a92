//go:build cgo

package claims

import "testing"

const javaClientBase = `package com.example.net;

public class Client extends Base {
    public Client() {}

    @Override
    public void send(String body) {
        log(body);
    }

    private void log(String m) {}
}
`

const javaClientCur = `package com.example.net;

import static com.example.util.Strings.trim;
import com.example.util.Strings;
import java.io.IOException;

/** A client. */
@Deprecated
public class Client extends Base implements Sink {
    private static final int MAX = 3;

    private final Runnable hook = new Runnable() {
        @Override public void run() { flush(); }
    };

    public Client() { super(); }

    public Client(String host) {
        this();
    }

    @Override
    public void send(String body) {
        log(trim(body));
    }

    @SuppressWarnings("unchecked")
    public void send(String body, int retries) throws IOException {
        for (int i = 0; i < retries; i++) {
            send(body);
        }
    }

    public <T> T fetch(final String url,
                       byte[]... parts) throws IOException {
        Runnable r = this::flush;
        Strings.pad(url);
        return null;
    }

    void flush() { reset(); }

    private void log(Object m) {}

    static class Pool {
        Client take() {
            return new Client("x");
        }
    }

    interface Listener {
        void onEvent(String e);

        default void onClose() { onEvent("close"); }
    }

    enum Mode {
        FAST { @Override int weight() { return 1; } },
        SLOW;

        int weight() { return 2; }
    }

    record Point(int x, int y) {
        Point {
            check(x);
        }
    }
}
`

const javaServer = `package com.example.net;

public class Server {
    private final Client client = new Client();

    public void handle(String req) {
        client.send(req);
        process(req);
    }

    void audit() { log("x"); }

    void process(String r) {}
}
`

const javaBase = `package com.example.net;

public abstract class Base {
    protected Base() {}

    protected void reset() {}
}
`

const javaStrings = `package com.example.util;

public final class Strings {
    public static String trim(String s) { return s.trim(); }

    public static String pad(String s) { return s; }
}
`

func TestJava(t *testing.T) {
	r := repo{
		base: map[string]string{"net/Client.java": javaClientBase, "net/Base.java": javaBase, "util/Strings.java": javaStrings},
		cur: map[string]string{"net/Client.java": javaClientCur, "net/Base.java": javaBase, "util/Strings.java": javaStrings,
			"net/Server.java": javaServer, "net/Broken.java": "class Broken { void x( }\n",
			"cmd/main.go": "package main\n\nfunc main() { trim() }\n\nfunc trim() {}\n"},
	}
	runCases(t, r, []tsCase{
		// function_added: overloads, constructors, nesting, signatures.
		{"added overload chosen by signature", fa("Client.send", "signature=public void send(String body, int retries) throws IOException"), "verified added_declaration net/Client.java:28 b0"},
		{"overloads without a signature", fa("Client.send"), "unresolved ambiguous 2"},
		{"signature picks the edited overload", fa("Client.send", "signature=public void send(String body)"), "failed claimed_symbol_not_added: claimed function Client.send already exists at the baseline; it was not added by this task"},
		{"signature of no overload", fa("Client.send", "signature=void send()"), "unresolved ambiguous 2"},
		{"parameter type changed is an edit", fa("log"), "failed claimed_symbol_not_added: claimed function log already exists at the baseline; it was not added by this task"},
		{"generic varargs, multi-line signature", fa("fetch", "signature=public <T> T fetch(final String url, byte[]... parts) throws IOException"), "verified added_declaration net/Client.java:34 b0"},
		{"signature keeps modifiers, drops annotations", fa("fetch", "signature=@Override public <T> T fetch(final String url, byte[]... parts) throws IOException"),
			`failed claimed_signature_mismatch: claimed signature "@Override public <T> T fetch(final String url, byte[]... parts) throws IOException" of fetch differs from the source: "public <T> T fetch(final String url, byte[]... parts) throws IOException"`},
		{"added constructor overload", fa("Client.Client", "signature=public Client(String host)"), "verified added_declaration net/Client.java:18 b0"},
		{"constructors without a signature", fa("Client.Client"), "unresolved ambiguous 2"},
		{"edited constructor", fa("Client.Client", "signature=public Client()"), "failed claimed_symbol_not_added: claimed function Client.Client already exists at the baseline; it was not added by this task"},
		{"class name alone: class and constructors", fa("Client"), "unresolved ambiguous 3"},
		{"nested class method", fa("Client.Pool.take", "signature=Client take()"), "verified added_declaration net/Client.java:46 b0"},
		{"nested class method, inner qualifier", fa("Pool.take", "file=net/Client.java"), "verified added_declaration net/Client.java:46 b0"},
		{"package-qualified", fa("com.example.net.Client.Pool.take"), "verified added_declaration net/Client.java:46 b0"},
		{"javadoc spelling", fa("Client#flush", "signature=void flush()"), "verified added_declaration net/Client.java:41 b0"},
		{"anonymous class method", fa("Client.Runnable.run", "signature=public void run()"), "verified added_declaration net/Client.java:13 b0"},
		{"interface method without body", fa("Listener.onEvent", "file=net/Client.java"), "failed claimed_symbol_missing: claimed function Listener.onEvent not found in net/Client.java"},
		{"interface default method", fa("Listener.onClose", "signature=default void onClose()"), "verified added_declaration net/Client.java:54 b0"},
		{"enum constant body method", fa("Mode.FAST.weight", "signature=int weight()"), "verified added_declaration net/Client.java:58 b0"},
		{"enum method", fa("Mode.weight"), "verified added_declaration net/Client.java:61 b0"},
		{"enum method and constant body method", fa("weight"), "unresolved ambiguous 2"},
		{"record compact constructor", fa("Point.Point", "signature=Point"), "verified added_declaration net/Client.java:65 b0"},
		{"nested class is not a function", fa("Client.Pool"), "unresolved claim_kind_mismatch"},
		{"field is not a function", fa("Client.MAX"), "unresolved claim_kind_mismatch"},
		{"enum constant is not a function", fa("Mode.SLOW"), "unresolved claim_kind_mismatch"},
		{"parse error", fa("x", "file=net/Broken.java"), "unresolved current_parse_failed"},
		// integration.
		{"bare call in the same class", ig("Client.send", "Client.log"), "verified compatible_call_candidate net/Client.java:24 -> net/Client.java:43 name"},
		{"static import call", ig("Client.send", "Strings.trim"), "verified compatible_call_candidate net/Client.java:24 -> util/Strings.java:4 import"},
		{"call through the class name", ig("fetch", "Strings.pad"), "verified compatible_call_candidate net/Client.java:37 -> util/Strings.java:6 method_name"},
		{"method reference is not a call", ig("fetch", "Client.flush"), "failed missing_call_edge: no call from fetch to Client.flush was found"},
		{"member call binds by method name", ig("Server.handle", "Client.send"), "verified compatible_call_candidate net/Server.java:7 -> net/Client.java:23 method_name"},
		{"bare call outside the class", ig("Server.audit", "Client.log"), "failed missing_call_edge: no call from Server.audit to Client.log was found"},
		{"overload calls overload", ig("Client.send", "Client.send"), "verified compatible_call_candidate net/Client.java:30 -> net/Client.java:23 name"},
		{"new calls the constructor", ig("Pool.take", "Client.Client"), "verified compatible_call_candidate net/Client.java:47 -> net/Client.java:16 name"},
		{"this() calls a constructor", ig("Client.Client", "Client.Client"), "verified compatible_call_candidate net/Client.java:19 -> net/Client.java:16 name"},
		{"super() calls the superclass constructor", ig("Client.Client", "Base.Base"), "verified compatible_call_candidate net/Client.java:16 -> net/Base.java:4 name"},
		{"inherited method called bare", ig("flush", "Base.reset"), "verified compatible_call_candidate net/Client.java:41 -> net/Base.java:6 name"},
		{"anonymous class calls an outer method", ig("Runnable.run", "Client.flush"), "verified compatible_call_candidate net/Client.java:13 -> net/Client.java:41 name"},
		{"abstract interface method is no target", ig("Listener.onClose", "Listener.onEvent", "to_file=net/Client.java"), "failed hallucinated_symbol: integration target Listener.onEvent does not exist"},
		{"go to java", ig("main", "Strings.trim"), "unresolved cross_language_binding_unavailable"},
		{"java to go", ig("Client.send", "trim", "to_file=cmd/main.go"), "unresolved cross_language_binding_unavailable"},
	})
}

// TestJavaDeclarations lists what the Java walker extracts: identities with parameter types,
// signatures, constructor flags and non-functions.
func TestJavaDeclarations(t *testing.T) {
	src := `package p;

class A<T> {
    int a, b[];

    A(A this) {}

    @Deprecated @SuppressWarnings({"x"})
    public static <K extends Comparable<K>> java.util.Map<K, List<T>> m(
            @NonNull final Map<String,  Integer> x, int y[], String... rest) throws E1, E2 {
        return null;
    }

    /* c */ private synchronized void m(long z) {}

    native void n();

    @interface Tag { String value(); }
}

record R(int x, java.util.List<String> ys) {
    R { }
    R(int x) { this(x, null); }
}
`
	u, err := backends[langJava].parse("p/A.java", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range u.decls {
		s := d.container + "|" + d.name
		if d.callable() {
			s += "|" + d.overload + "|" + d.signature()
			if d.ctor {
				s += "|ctor"
			}
		}
		got = append(got, s)
	}
	want := []string{
		"|A",
		"A|a", "A|b",
		"A|A|()|A(A this)|ctor",
		"A|m|(Map<String,Integer>,int[],String...)|public static <K extends Comparable<K>> java.util.Map<K, List<T>> m( @NonNull final Map<String, Integer> x, int y[], String... rest) throws E1, E2",
		"A|m|(long)|private synchronized void m(long z)",
		"A|Tag",
		"|R",
		"R|R|(int,java.util.List<String>)|R|ctor",
		"R|R|(int)|R(int x)|ctor",
	}
	if len(got) != len(want) {
		t.Fatalf("declarations:\n%s\nwant:\n%s", join(got), join(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("declaration %d:\n got  %s\n want %s", i, got[i], want[i])
		}
	}
	if u.module != "p" {
		t.Errorf("module %q, want the package name p", u.module)
	}
}

func join(s []string) string {
	out := ""
	for _, x := range s {
		out += "  " + x + "\n"
	}
	return out
}
