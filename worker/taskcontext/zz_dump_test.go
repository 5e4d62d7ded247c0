package taskcontext

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/source/project"
)

func TestZZDump(t *testing.T) {
	root := os.Getenv("DUMP_ROOT")
	if root == "" {
		t.Skip()
	}
	var set struct {
		Tasks []struct {
			ID, Kind, Task string
			Files          []string
		}
	}
	data, _ := os.ReadFile(os.Getenv("DUMP_SET"))
	json.Unmarshal(data, &set)
	d, _, _ := project.Load(root)
	snap, err := index.Open(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	for _, task := range set.Tasks {
		c, err := Collect(context.Background(), snap, Request{Kind: task.Kind, Task: task.Task, Budget: 8000}, "")
		if err != nil {
			t.Fatal(err)
		}
		pr := c.col.proximity()
		maxLex, maxPR, maxFile := 0.0, 0.0, 0.0
		for i, f := range c.col.items {
			maxPR = max(maxPR, pr[i])
			maxLex = max(maxLex, c.col.lexical[f.ref.Key])
		}
		for _, s := range c.col.files {
			maxFile = max(maxFile, s)
		}
		// distinct file rank
		seen := map[string]int{}
		var order []string
		for _, f := range c.col.items {
			if _, ok := seen[f.rec.SourcePath]; !ok {
				seen[f.rec.SourcePath] = len(order) + 1
				order = append(order, f.rec.SourcePath)
			}
		}
		fmt.Printf("%s %s collected=%d\n", task.ID, task.Kind, len(c.col.items))
		for _, want := range task.Files {
			r, ok := seen[want]
			if !ok {
				fmt.Printf("   --  %-70s not collected; file score %.2f (max %.2f)\n", want, c.col.files[want], maxFile)
				continue
			}
			for i, f := range c.col.items {
				if f.rec.SourcePath == want {
					fmt.Printf("   %3d %-70s item %d score %.3f lex %.2f pr %.2f file %.2f focus=%d %s\n", r, want, i, f.score, c.col.lexical[f.ref.Key]/maxLex, pr[i]/maxPR, c.col.files[want]/maxFile, f.focus, f.ref.ID)
					break
				}
			}
		}
	}
}
