package schemaerr

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/mastermind-controller/mastermind/internal/thirdparty/jsonschema"
	"github.com/mastermind-controller/mastermind/internal/thirdparty/jsonschema/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

var english = message.NewPrinter(language.English)

// Message returns mastermind's message for one error kind, in jsonschema/v5's wording: "missing
// properties: 'a', 'b'", "length must be >= 1, but got 0", "expected string, but got number",
// "not allowed" (a false schema). A kind with no wording of its own here gets v6's English text.
func Message(k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *kind.FalseSchema:
		return "not allowed"
	case *kind.Type:
		return fmt.Sprintf("expected %s, but got %s", strings.Join(k.Want, " or "), k.Got)
	case *kind.Const:
		if !primitive(k.Want) {
			return "const failed"
		}
		return fmt.Sprintf("value must be %#v", k.Want)
	case *kind.Enum:
		vals := make([]string, len(k.Want))
		for i, v := range k.Want {
			if !primitive(v) {
				return "enum failed"
			}
			vals[i] = fmt.Sprintf("%#v", v)
		}
		if len(vals) == 1 {
			return "value must be " + vals[0]
		}
		return "value must be one of " + strings.Join(vals, ", ")
	case *kind.Format:
		if s, ok := k.Got.(string); ok {
			return quote(s) + " is not valid " + quote(k.Want)
		}
		return fmt.Sprintf("%v is not valid %s", k.Got, quote(k.Want))
	case *kind.Required:
		return "missing properties: " + quoteAll(k.Missing)
	case *kind.AdditionalProperties:
		return "additionalProperties " + quoteAll(k.Properties) + " not allowed"
	case *kind.DependentRequired:
		return dependency(k.Prop, k.Missing)
	case *kind.Dependency:
		return dependency(k.Prop, k.Missing)
	case *kind.PropertyNames:
		return "invalid propertyName " + quote(k.Property)
	case *kind.MinProperties:
		return fmt.Sprintf("minimum %d properties allowed, but found %d properties", k.Want, k.Got)
	case *kind.MaxProperties:
		return fmt.Sprintf("maximum %d properties allowed, but found %d properties", k.Want, k.Got)
	case *kind.MinItems:
		return fmt.Sprintf("minimum %d items required, but found %d items", k.Want, k.Got)
	case *kind.MaxItems:
		return fmt.Sprintf("maximum %d items required, but found %d items", k.Want, k.Got)
	case *kind.AdditionalItems:
		return fmt.Sprintf("%d additional items are not allowed", k.Count)
	case *kind.UniqueItems:
		return fmt.Sprintf("items at index %d and %d are equal", k.Duplicates[0], k.Duplicates[1])
	case *kind.Contains:
		return "no items match contains schema"
	case *kind.MinContains:
		return fmt.Sprintf("valid must be >= %d, but got %d", k.Want, len(k.Got))
	case *kind.MaxContains:
		return fmt.Sprintf("valid must be <= %d, but got %d", k.Want, len(k.Got))
	case *kind.MinLength:
		return fmt.Sprintf("length must be >= %d, but got %d", k.Want, k.Got)
	case *kind.MaxLength:
		return fmt.Sprintf("length must be <= %d, but got %d", k.Want, k.Got)
	case *kind.Pattern:
		return "does not match pattern " + quote(k.Want)
	case *kind.Minimum:
		return fmt.Sprintf("must be >= %s but found %s", rat(k.Want), rat(k.Got))
	case *kind.Maximum:
		return fmt.Sprintf("must be <= %s but found %s", rat(k.Want), rat(k.Got))
	case *kind.ExclusiveMinimum:
		return fmt.Sprintf("must be > %s but found %s", rat(k.Want), rat(k.Got))
	case *kind.ExclusiveMaximum:
		return fmt.Sprintf("must be < %s but found %s", rat(k.Want), rat(k.Got))
	case *kind.MultipleOf:
		return fmt.Sprintf("%s not multipleOf %s", rat(k.Got), rat(k.Want))
	case *kind.ContentEncoding:
		return "value is not " + k.Want + " encoded"
	case *kind.ContentMediaType:
		return "value is not of mediatype " + quote(k.Want)
	case *kind.ContentSchema:
		return "value is not valid json"
	case *kind.Not:
		return "not failed"
	case *kind.AllOf:
		return "allOf failed"
	case *kind.AnyOf:
		return "anyOf failed"
	case *kind.OneOf:
		if len(k.Subschemas) >= 2 {
			return fmt.Sprintf("valid against schemas at indexes %d and %d", k.Subschemas[0], k.Subschemas[1])
		}
		return "oneOf failed"
	case *kind.Reference:
		return "doesn't validate with " + quote(k.URL)
	case *kind.Schema:
		return "doesn't validate with " + quote(k.Location)
	case *kind.Group:
		return "validation failed"
	case nil:
		return "validation failed"
	}
	return k.LocalizedString(english)
}

func primitive(v any) bool {
	switch v.(type) {
	case []any, map[string]any:
		return false
	}
	return true
}

func dependency(prop string, missing []string) string {
	parts := make([]string, len(missing))
	for i, m := range missing {
		parts[i] = fmt.Sprintf("property %s is required, if %s property exists", quote(m), quote(prop))
	}
	return strings.Join(parts, "; ")
}

// quote is jsonschema/v5's quoting: Go-quoted, in single quotes, with double quotes bare.
func quote(s string) string {
	q := strconv.Quote(s)
	q = strings.ReplaceAll(q, `\"`, `"`)
	q = strings.ReplaceAll(q, `'`, `\'`)
	return "'" + q[1:len(q)-1] + "'"
}

func quoteAll(names []string) string {
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = quote(n)
	}
	return strings.Join(parts, ", ")
}

// rat renders a number as an integer when it is one, otherwise as its shortest float64 form.
func rat(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}
