package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/docforge/docforge/render"
)

func runRender(e *env) error {
	d, err := e.descriptor()
	if err != nil {
		return err
	}
	if e.status || e.deep {
		rep, err := render.Status(e.ctx, d, e.policy(), render.StatusRequest{ViewID: e.view, Deep: e.deep})
		if err != nil {
			return err
		}
		st := rep.Views
		if len(st) == 0 && !e.json {
			fmt.Fprintf(e.stdout, "no views: %s declares no [[views]], so nothing is rendered or checked; add one ('docforge help format', Views)\n", "docforge.toml")
			return nil
		}
		if e.json {
			if err := e.writeJSON(e.stdout, map[string]any{"views": st}); err != nil {
				return err
			}
		} else {
			tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "VIEW\tOUTPUT\tSTATE\tWHY")
			for _, s := range st {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.View, s.Output, s.State, strings.Join(s.Reasons, "; "))
			}
			tw.Flush()
		}
		for _, s := range st {
			if s.State != render.Current {
				return exitError(exitValidation)
			}
		}
		return nil
	}
	var views []string
	if e.view != "" {
		views = []string{e.view}
	}
	pub, err := render.Publish(e.ctx, d, e.policy(), views, render.PublishOptions{})
	if err != nil {
		return err
	}
	if e.json {
		return e.writeJSON(e.stdout, map[string]any{"published": pub, "renderer": render.HTML.ID()})
	}
	removed := map[string]int{}
	for _, p := range pub {
		fmt.Fprintf(e.stdout, "wrote %s: view %s, %d nodes, %d bytes, %s\n", p.Output, p.View, p.Nodes, p.Bytes, p.SHA256)
		for name, n := range p.Shortcodes {
			removed[name] += n
		}
	}
	if len(removed) > 0 {
		var parts []string
		for _, name := range slices.Sorted(maps.Keys(removed)) {
			parts = append(parts, fmt.Sprintf("%s (%d)", name, removed[name]))
		}
		fmt.Fprintf(e.stdout, "left out Hugo shortcodes DocForge does not render (their inner text kept): %s\n", strings.Join(parts, ", "))
	}
	return nil
}
