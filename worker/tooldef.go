package worker

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/docforge/docforge/base/problem"
)

// define completes a tool's spec from its typed input In: the input schema is derived from In
// (property names from json tags, required from the fields without omitempty, descriptions
// from jsonschema tags, bounds from bounds tags: `bounds:"min=1,max=10,maxLength=200,enum=a|b"`),
// and arguments are decoded into In, strictly, before run sees them. So the schema a client
// reads and the struct the handler decodes cannot drift apart.
func define[In any](spec ToolSpec, run func(c *call, in In) (any, error)) ToolSpec {
	spec.InputSchema = schemaOf[In]()
	spec.validator = validatorOf(spec.InputSchema)
	spec.run = func(c *call, args json.RawMessage) (any, error) {
		var in In
		if err := decodeArgs(args, &in); err != nil {
			return nil, err
		}
		return run(c, in)
	}
	return spec
}

// schemaOf derives the JSON schema of In as a plain map (the catalogue's form). Operation
// documents of changesets carry their hand-kept schemas (typeSchemas).
func schemaOf[In any]() map[string]any {
	s, err := jsonschema.For[In](&jsonschema.ForOptions{TypeSchemas: typeSchemas()})
	if err != nil {
		panic(fmt.Sprintf("worker: the input of a tool has no JSON schema: %v", err)) // a test derives every tool's
	}
	data, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("worker: encode a tool's input schema: %v", err))
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		panic(fmt.Sprintf("worker: decode a tool's input schema: %v", err))
	}
	if _, ok := m["properties"]; !ok {
		m["properties"] = map[string]any{}
	}
	applyBounds(m, reflect.TypeFor[In]())
	return m
}

// validatorOf resolves a tool's input schema (the map the catalogue publishes, bounds
// included) for the schema library to validate arguments against.
func validatorOf(m map[string]any) *jsonschema.Resolved {
	data, err := json.Marshal(m)
	if err != nil {
		panic(fmt.Sprintf("worker: encode a tool's input schema: %v", err))
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		panic(fmt.Sprintf("worker: read a tool's input schema: %v", err))
	}
	r, err := s.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("worker: resolve a tool's input schema: %v", err)) // a test defines every tool
	}
	return r
}

// validateArgs refuses arguments their tool's schema does not admit (a limit of 0, a kind
// outside its enum, a required field missing), naming the property and the rule, before they
// are decoded; decodeArgs then refuses what is left (unknown names, wrong types).
func validateArgs(tool string, v *jsonschema.Resolved, args json.RawMessage) error {
	if v == nil {
		return nil
	}
	var instance any = map[string]any{}
	if trimmed := bytes.TrimSpace(args); len(trimmed) > 0 && string(trimmed) != "null" {
		if err := json.Unmarshal(trimmed, &instance); err != nil {
			return problem.Errorf(problem.InvalidArgument, "arguments: %v", err)
		}
	}
	if err := v.Validate(instance); err != nil {
		return problem.Errorf(problem.InvalidArgument, "%s", explainSchemaError(tool, v.Schema(), instance, err))
	}
	return nil
}

// schemaFailure is the schema library's account of a failed keyword: the property's JSON
// pointer, the keyword and the library's own detail.
var schemaFailure = regexp.MustCompile(`validating /properties/([^:/]+): (\w+): (.*)$`)

// explainSchemaError says in the tool's words why a top-level argument failed its schema (a
// count out of range, a value outside its enum); anything else keeps the library's account.
func explainSchemaError(tool string, schema *jsonschema.Schema, instance any, err error) string {
	account := strings.ReplaceAll(err.Error(), "validating root: ", "")
	m := schemaFailure.FindStringSubmatch(err.Error())
	args, _ := instance.(map[string]any)
	if m == nil || schema == nil || schema.Properties[m[1]] == nil || args == nil {
		return fmt.Sprintf("arguments do not match %s's input schema: %s", tool, account)
	}
	name, prop, given := m[1], schema.Properties[m[1]], args[m[1]]
	switch {
	case m[2] == "minimum" && prop.Minimum != nil:
		return fmt.Sprintf("%s is %s; it must be at least %s", name, number(given), number(*prop.Minimum))
	case m[2] == "maximum" && prop.Maximum != nil:
		return fmt.Sprintf("%s is %s; it must be at most %s", name, number(given), number(*prop.Maximum))
	case m[2] == "maxLength" && prop.MaxLength != nil:
		return fmt.Sprintf("%s holds more than %d characters; it may hold at most %d", name, *prop.MaxLength, *prop.MaxLength)
	case m[2] == "enum":
		return fmt.Sprintf("%s is %v; it must be one of %v", name, given, prop.Enum)
	case m[2] == "type" && prop.Type != "":
		return fmt.Sprintf("%s is %s; it must be %s", name, jsonKind(given), article(prop.Type))
	}
	return fmt.Sprintf("%s: %s: %s", name, m[2], m[3])
}

// jsonKind names what a decoded JSON value is, with the value when it is short.
func jsonKind(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return fmt.Sprintf("the boolean %v", v)
	case float64:
		return "the number " + number(v)
	case string:
		if len(v) > 40 {
			return "a string"
		}
		return fmt.Sprintf("the string %q", v)
	case []any:
		return "an array"
	}
	return "an object"
}

// article is a JSON Schema type with its article: "an integer", "a string".
func article(typ string) string {
	if strings.ContainsAny(typ[:1], "aeiou") {
		return "an " + typ
	}
	return "a " + typ
}

// number writes a JSON number as it was most likely written: 100000000, not 1e+08.
func number(v any) string {
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

// applyBounds adds the bounds tags of t's fields (and its embedded structs') to the
// properties of the object schema m, and states an optional list as an array, not as
// "array or null": an omitted list and an empty one mean the same to every tool.
func applyBounds(m map[string]any, t reflect.Type) {
	props, _ := m["properties"].(map[string]any)
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			applyBounds(m, f.Type)
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		prop, ok := props[name].(map[string]any)
		if !ok {
			continue
		}
		if types, ok := prop["type"].([]any); ok && len(types) == 2 && types[0] == "null" {
			prop["type"] = types[1]
		}
		for _, b := range strings.Split(f.Tag.Get("bounds"), ",") {
			key, value, ok := strings.Cut(b, "=")
			if !ok {
				continue
			}
			switch key {
			case "min":
				prop["minimum"] = mustInt(value)
			case "max":
				prop["maximum"] = mustInt(value)
			case "maxLength":
				prop["maxLength"] = mustInt(value)
			case "enum":
				prop["enum"] = strings.Split(value, "|")
			}
		}
	}
}

func mustInt(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		panic(fmt.Sprintf("worker: bounds tag %q is not an integer", s))
	}
	return n
}
