package rpcschema

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// FieldError is JSON that does not fit the type it was decoded into, named in the schema's terms:
// the field's path and what it must be.
type FieldError struct {
	Field  string // the field's path (`participants`, `preview.image`); empty for the whole value
	Reason string // "must be an array, not string"
}

func (e *FieldError) Error() string {
	if e.Field == "" {
		return e.Reason
	}
	return e.Field + ": " + e.Reason
}

// Decode decodes JSON into one of the generated types; JSON of another type than a field's, or
// without a field the schema requires (a field whose tag has no omitempty), is a *FieldError
// naming the field.
func Decode(raw []byte, into any) error {
	err := json.Unmarshal(raw, into)
	var mismatch *json.UnmarshalTypeError
	var syntax *json.SyntaxError
	switch {
	case err == nil:
		return required(raw, reflect.TypeOf(into), "")
	case errors.As(err, &mismatch):
		return &FieldError{Field: mismatch.Field, Reason: fmt.Sprintf("must be %s, not %s", kindOf(mismatch.Type), mismatch.Value)}
	case errors.As(err, &syntax):
		return &FieldError{Reason: "must be JSON: " + syntax.Error()}
	}
	return &FieldError{Reason: err.Error()}
}

// required: the first field of t (a generated struct, or what holds some) that raw leaves out
// though the schema requires it, as a *FieldError; nil when it has all of them.
func required(raw []byte, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			return nil
		}
		for i, item := range items {
			if err := required(item, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Struct:
		var fields map[string]json.RawMessage
		if json.Unmarshal(raw, &fields) != nil || fields == nil {
			return nil
		}
		for i := range t.NumField() {
			field := t.Field(i)
			name, options, _ := strings.Cut(field.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			value, given := fields[name]
			at := strings.TrimPrefix(path+"."+name, ".")
			if !given && !strings.Contains(options, "omitempty") {
				return &FieldError{Field: at, Reason: "required"}
			}
			if given {
				if err := required(value, field.Type, at); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// kindOf: a Go type of the generated code as the JSON it is read from.
func kindOf(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return t.String()
}
