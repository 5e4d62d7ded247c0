package worker

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// define completes a tool's spec from its typed input In: the input schema is derived from In
// (property names from json tags, required from the fields without omitempty, descriptions
// from jsonschema tags, bounds from bounds tags: `bounds:"min=1,max=10,maxLength=200,enum=a|b"`),
// and arguments are decoded into In, strictly, before run sees them. So the schema a client
// reads and the struct the handler decodes cannot drift apart.
func define[In any](spec ToolSpec, run func(c *call, in In) (any, error)) ToolSpec {
	spec.InputSchema = schemaOf[In]()
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
