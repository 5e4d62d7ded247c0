package main

import (
	"flag"
	"slices"
	"strings"
	"testing"
)

// A command that is a tool takes exactly the tool's arguments: each property is a positional
// argument or a flag of its type, and nothing else of the command reaches the tool.
func TestToolCommandsMatchTheirTools(t *testing.T) {
	tools := 0
	for name, cmd := range commands() {
		if cmd.tool == nil {
			continue
		}
		tools++
		props, _ := cmd.tool.schema()
		fs := flag.NewFlagSet(name, flag.ContinueOnError)
		e := &env{}
		cmd.define(fs, e)
		for prop, p := range props {
			if slices.Contains(cmd.tool.positional, prop) {
				continue
			}
			f := fs.Lookup(cmd.tool.flagName(prop))
			if f == nil {
				t.Errorf("%s: no flag for %s's %s", name, cmd.tool.tool, prop)
				continue
			}
			_, isBool := f.Value.(interface{ IsBoolFlag() bool })
			kind := map[bool]string{true: "boolean", false: "string"}[isBool]
			if _, isInt := f.Value.(flag.Getter).Get().(int); isInt {
				kind = "integer"
			}
			if kind != p["type"] {
				t.Errorf("%s --%s is a %s flag; %s's %s is %v", name, f.Name, kind, cmd.tool.tool, prop, p["type"])
			}
			if desc, _ := p["description"].(string); !strings.Contains(f.Usage, desc) {
				t.Errorf("%s --%s: usage %q lacks the tool's description %q", name, f.Name, f.Usage, desc)
			}
		}
		for _, prop := range cmd.tool.positional {
			if _, ok := props[prop]; !ok {
				t.Errorf("%s: positional %s is not an argument of %s", name, prop, cmd.tool.tool)
			}
		}
		if len(e.toolFlags)+len(cmd.tool.positional) != len(props) {
			t.Errorf("%s: %d flags and %d positional for %d properties", name, len(e.toolFlags), len(cmd.tool.positional), len(props))
		}
	}
	if tools < 10 {
		t.Errorf("%d tool commands; search, get, filter, backlinks, deps, impact, logic, context, task-context and diff are tools", tools)
	}
}

// The arguments sent are the positional ones and the flags given, nothing left at a default.
func TestToolCommandArguments(t *testing.T) {
	cmd := commands()["task-context"]
	fs := flag.NewFlagSet("task-context", flag.ContinueOnError)
	e := &env{}
	cmd.define(fs, e)
	if err := fs.Parse([]string{"--kind", "change", "--budget", "500"}); err != nil {
		t.Fatal(err)
	}
	args, err := cmd.tool.arguments(fs, e, []string{"rename", "the", "store"})
	if err != nil {
		t.Fatal(err)
	}
	if len(args) != 3 || args["task"] != "rename the store" || args["kind"] != "change" || args["budget"] != 500 {
		t.Errorf("arguments %v", args)
	}
	fs = flag.NewFlagSet("task-context", flag.ContinueOnError)
	cmd.define(fs, e)
	if _, err := cmd.tool.arguments(fs, e, []string{"x"}); err == nil || !strings.Contains(err.Error(), "--kind is required: one of change") {
		t.Errorf("kind left out: %v", err)
	}
}
