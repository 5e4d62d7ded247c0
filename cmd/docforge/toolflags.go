package main

import (
	"flag"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/worker/protocol"
)

// toolCommand makes a command of one read tool: its flags are the tool's input properties as
// the catalogue publishes them (name, type, description and bounds), but those its
// positional arguments fill, so the CLI and the tool cannot drift apart.
type toolCommand struct {
	cat  *toolCatalogue
	tool string
	// positional are the properties the positional arguments fill, in order; a string
	// property listed last takes every remaining argument, joined by spaces.
	positional []string
	// flagNames gives a property a shorter flag than its name (focus_node_id: focus);
	// any other property's flag is its name with '-' for '_'.
	flagNames map[string]string
}

// toolCatalogue is the catalogue the bridge embeds, read once for all the commands of one
// command line (reading it takes about 0.4 ms, and choosing the command reads every tool
// command's flags).
type toolCatalogue struct {
	tools []protocol.Tool
}

func (c *toolCatalogue) all() []protocol.Tool {
	if c.tools == nil {
		c.tools = protocol.Catalog()
	}
	return c.tools
}

// schema is the tool's input schema from the catalogue the bridge embeds.
func (tc *toolCommand) schema() (props map[string]map[string]any, required []string) {
	for _, t := range tc.cat.all() {
		if t.Name != tc.tool {
			continue
		}
		props = map[string]map[string]any{}
		all, _ := t.InputSchema["properties"].(map[string]any)
		for name, p := range all {
			props[name], _ = p.(map[string]any)
		}
		list, _ := t.InputSchema["required"].([]any)
		for _, r := range list {
			required = append(required, fmt.Sprint(r))
		}
		return props, required
	}
	panic("docforge: no tool " + tc.tool + " in the catalogue") // TestToolCommandsMatchTheirTools
}

// flagName is the flag of a property.
func (tc *toolCommand) flagName(property string) string {
	if f, ok := tc.flagNames[property]; ok {
		return f
	}
	return strings.ReplaceAll(property, "_", "-")
}

// toolFlag is one defined flag and the property it sets.
type toolFlag struct {
	property string
	value    any // *string, *int or *bool
	schema   map[string]any
}

// define adds a flag to fs for every property the positional arguments do not fill.
func (tc *toolCommand) define(fs *flag.FlagSet, e *env) {
	e.toolFlags = nil
	props, required := tc.schema()
	for _, name := range slices.Sorted(maps.Keys(props)) {
		if slices.Contains(tc.positional, name) {
			continue
		}
		p := props[name]
		usage := flagUsage(p, slices.Contains(required, name))
		f := toolFlag{property: name, schema: p}
		switch p["type"] {
		case "integer":
			f.value = fs.Int(tc.flagName(name), 0, usage)
		case "boolean":
			f.value = fs.Bool(tc.flagName(name), false, usage)
		default:
			f.value = fs.String(tc.flagName(name), "", usage)
		}
		e.toolFlags = append(e.toolFlags, f)
	}
}

// flagUsage is a property's description with its bounds, for --help.
func flagUsage(p map[string]any, required bool) string {
	text, _ := p["description"].(string)
	if values := enumValues(p); values != nil {
		text += " (one of " + strings.Join(values, ", ") + ")"
	}
	if required {
		text += " (required)"
	}
	return text
}

// arguments builds the tool's arguments: the positional ones, and every flag given on the
// command line (a flag left out is not sent, so the tool's default applies). A count outside
// its schema's bounds, or a required flag left out, is refused before any call.
func (tc *toolCommand) arguments(fs *flag.FlagSet, e *env, positional []string) (map[string]any, error) {
	args := map[string]any{}
	for i, name := range tc.positional {
		switch {
		case i >= len(positional):
		case i == len(tc.positional)-1:
			args[name] = strings.Join(positional[i:], " ")
		default:
			args[name] = positional[i]
		}
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	_, required := tc.schema()
	for _, f := range e.toolFlags {
		flagName := tc.flagName(f.property)
		if !given[flagName] {
			if slices.Contains(required, f.property) {
				return nil, problem.Errorf(problem.InvalidArgument, "--%s is required%s", flagName, enumHint(f.schema))
			}
			continue
		}
		switch v := f.value.(type) {
		case *int:
			if err := inBounds(flagName, *v, f.schema); err != nil {
				return nil, err
			}
			args[f.property] = *v
		case *bool:
			args[f.property] = *v
		case *string:
			args[f.property] = *v
		}
	}
	return args, nil
}

// inBounds refuses a count outside its property's minimum and maximum.
func inBounds(flagName string, n int, schema map[string]any) error {
	lo, hasLo := schemaInt(schema["minimum"])
	hi, hasHi := schemaInt(schema["maximum"])
	switch {
	case hasLo && n < lo:
		return problem.Errorf(problem.InvalidArgument, "--%s is %d; it must be at least %d", flagName, n, lo)
	case hasLo && hasHi && n > hi:
		return problem.Errorf(problem.InvalidArgument, "--%s is %d; it must be from %d to %d", flagName, n, lo, hi)
	case hasHi && n > hi:
		return problem.Errorf(problem.InvalidArgument, "--%s is %d; it must be at most %d", flagName, n, hi)
	}
	return nil
}

// schemaInt reads a bound of the embedded catalogue (a JSON number).
func schemaInt(v any) (int, bool) {
	f, ok := v.(float64)
	return int(f), ok
}

// enumHint is ": one of a, b, c" for a property with an enum.
func enumHint(schema map[string]any) string {
	if values := enumValues(schema); values != nil {
		return ": one of " + strings.Join(values, ", ")
	}
	return ""
}

// enumValues are a property's allowed values, or nil when it has no enum.
func enumValues(schema map[string]any) []string {
	enum, ok := schema["enum"].([]any)
	if !ok {
		return nil
	}
	values := make([]string, len(enum))
	for i, v := range enum {
		values[i] = fmt.Sprint(v)
	}
	return values
}
