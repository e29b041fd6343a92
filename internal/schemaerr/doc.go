// Package schemaerr reads jsonschema/v6 validation errors by their typed kinds, never by message
// text, and gives each its locations as JSON pointers, the failing keyword and mastermind's own
// message. The messages keep jsonschema/v5's wording, which the contracts quote.
package schemaerr
