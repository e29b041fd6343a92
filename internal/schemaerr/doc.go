// Package schemaerr reads github.com/santhosh-tekuri/jsonschema/v6 validation errors by their
// typed kinds (package kind), never by message text: it gives every error node its instance and
// schema locations as plain RFC 6901 pointers, the failing keyword, the leaf causes, and
// mastermind's own message for each kind. The messages keep the wording jsonschema/v5 used, which
// the report-filter REJECT text (agent-contracts.md §2.7) and the report's schema.other findings
// (executor-report-v1.md §5.2) quote.
package schemaerr
