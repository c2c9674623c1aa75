package hep

import "fmt"

// Kind is what went wrong: hep-core's error kinds by their snake_case names, plus the C
// ABI's invalid_argument and internal.
type Kind string

// The error kinds.
const (
	KindSyntax             Kind = "syntax"
	KindInvalidUTF8        Kind = "invalid_utf8"
	KindTrailingCharacters Kind = "trailing_characters"
	KindNotAnObject        Kind = "not_an_object"
	KindMissingField       Kind = "missing_field"
	KindDuplicateField     Kind = "duplicate_field"
	KindWrongType          Kind = "wrong_type"
	KindOutOfRange         Kind = "out_of_range"
	KindTooDeep            Kind = "too_deep"
	KindLineTooLong        Kind = "line_too_long"
	KindTruncated          Kind = "truncated"
	KindUnsupportedVersion Kind = "unsupported_version"
	KindViolation          Kind = "violation"
	KindUnencodable        Kind = "unencodable"
	KindIO                 Kind = "io"
	KindInvalidArgument    Kind = "invalid_argument"
	KindInternal           Kind = "internal"
)

// Error is an error of the library: its kind, where (Line and Column are 1-based, 0 when
// unknown) and an excerpt of the offending input.
type Error struct {
	// What went wrong.
	Kind Kind `json:"kind"`
	// The 1-based line of the stream, 0 when not about a line.
	Line uint64 `json:"line"`
	// The 1-based column (in bytes) within the line, 0 when unknown.
	Column uint64 `json:"column"`
	// What went wrong, in words.
	Message string `json:"message"`
	// A short excerpt of the offending input, empty when none.
	Excerpt string `json:"excerpt"`
}

// Error reads as "hep: syntax at line 3, column 1: expected a JSON value (near `xx`)".
func (e *Error) Error() string {
	where := ""
	if e.Line > 0 {
		where = fmt.Sprintf(" at line %d", e.Line)
		if e.Column > 0 {
			where += fmt.Sprintf(", column %d", e.Column)
		}
	}
	near := ""
	if e.Excerpt != "" {
		near = fmt.Sprintf(" (near `%s`)", e.Excerpt)
	}
	return fmt.Sprintf("hep: %s%s: %s%s", e.Kind, where, e.Message, near)
}

// Is reports whether target is the sentinel of e's kind (ErrSyntax, ...), so that
// errors.Is(err, ErrSyntax) holds for every syntax error.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t == sentinels[e.Kind]
}

// Sentinels, one per kind, for errors.Is.
var (
	ErrSyntax             = &Error{Kind: KindSyntax, Message: "not well-formed JSON"}
	ErrInvalidUTF8        = &Error{Kind: KindInvalidUTF8, Message: "not valid UTF-8"}
	ErrTrailingCharacters = &Error{Kind: KindTrailingCharacters, Message: "characters after the JSON value"}
	ErrNotAnObject        = &Error{Kind: KindNotAnObject, Message: "not a JSON object"}
	ErrMissingField       = &Error{Kind: KindMissingField, Message: "a required field is absent"}
	ErrDuplicateField     = &Error{Kind: KindDuplicateField, Message: "a field appears twice"}
	ErrWrongType          = &Error{Kind: KindWrongType, Message: "a field has the wrong JSON type"}
	ErrOutOfRange         = &Error{Kind: KindOutOfRange, Message: "a number does not fit"}
	ErrTooDeep            = &Error{Kind: KindTooDeep, Message: "nested too deep"}
	ErrLineTooLong        = &Error{Kind: KindLineTooLong, Message: "the line is longer than the maximum"}
	ErrTruncated          = &Error{Kind: KindTruncated, Message: "the stream ended inside a line"}
	ErrUnsupportedVersion = &Error{Kind: KindUnsupportedVersion, Message: "a protocol version this library does not speak"}
	ErrViolation          = &Error{Kind: KindViolation, Message: "strict mode stopped at a violation"}
	ErrUnencodable        = &Error{Kind: KindUnencodable, Message: "a value cannot be encoded"}
	ErrIO                 = &Error{Kind: KindIO, Message: "reading or writing failed"}
	ErrInvalidArgument    = &Error{Kind: KindInvalidArgument, Message: "an argument is unusable"}
	ErrInternal           = &Error{Kind: KindInternal, Message: "a bug in the library"}
)

var sentinels = map[Kind]*Error{}

func init() {
	for _, e := range []*Error{
		ErrSyntax, ErrInvalidUTF8, ErrTrailingCharacters, ErrNotAnObject, ErrMissingField,
		ErrDuplicateField, ErrWrongType, ErrOutOfRange, ErrTooDeep, ErrLineTooLong, ErrTruncated,
		ErrUnsupportedVersion, ErrViolation, ErrUnencodable, ErrIO, ErrInvalidArgument, ErrInternal,
	} {
		sentinels[e.Kind] = e
	}
}
