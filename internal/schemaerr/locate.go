package schemaerr

import (
	"net/url"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/thirdparty/jsonschema"
	"github.com/mastermind-controller/mastermind/internal/thirdparty/jsonschema/kind"

	"github.com/mastermind-controller/mastermind/internal/jsonptr"
)

// Location is where one validation error node applies.
type Location struct {
	// Instance is the RFC 6901 pointer of the failing value in the instance.
	Instance string
	// Document is the URL of the schema document, without fragment.
	Document string
	// Schema is the JSON pointer, inside Document, of the schema object that holds the failing
	// keyword: the target of a $ref, not the referring object.
	Schema string
	// Keyword is the failing keyword, such as "required"; "" for a false schema and for the nodes
	// that only group causes.
	Keyword string
}

// KeywordPointer is the RFC 6901 pointer of the failing keyword inside Document.
func (l Location) KeywordPointer() string {
	if l.Keyword == "" {
		return l.Schema
	}
	return jsonptr.Append(l.Schema, l.Keyword)
}

// Locate returns the location of e. v6's SchemaURL fragment is a percent-encoded RFC 6901
// pointer (v6 writes it so); a fragment that does not decode is used as it is.
func Locate(e *jsonschema.ValidationError) Location {
	l := Location{Instance: jsonptr.Join(e.InstanceLocation...), Document: e.SchemaURL}
	if i := strings.IndexByte(e.SchemaURL, '#'); i >= 0 {
		l.Document = e.SchemaURL[:i]
		frag := e.SchemaURL[i+1:]
		if u, err := url.PathUnescape(frag); err == nil {
			frag = u
		}
		l.Schema = frag
	}
	if e.ErrorKind != nil {
		if p := e.ErrorKind.KeywordPath(); len(p) > 0 {
			l.Keyword = p[0]
		}
	}
	return l
}

// Leaf is a node of a validation error tree that has no causes, with its location.
type Leaf struct {
	*jsonschema.ValidationError
	Location
}

// Leaves returns the nodes of e that have no causes, depth first in cause order. A failure inside
// propertyNames is located at the offending member, where v6 locates it at the object, so that
// the location names the key that is wrong.
func Leaves(e *jsonschema.ValidationError) []Leaf {
	return leaves(e, "", false)
}

func leaves(e *jsonschema.ValidationError, member string, inNames bool) []Leaf {
	if pn, ok := e.ErrorKind.(*kind.PropertyNames); ok {
		member, inNames = jsonptr.Append(jsonptr.Join(e.InstanceLocation...), pn.Property), true
	}
	if len(e.Causes) == 0 {
		l := Locate(e)
		if inNames {
			l.Instance = member
		}
		return []Leaf{{e, l}}
	}
	var out []Leaf
	for _, c := range e.Causes {
		out = append(out, leaves(c, member, inNames)...)
	}
	return out
}
