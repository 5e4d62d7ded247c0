package index

import (
	"context"
	"fmt"

	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/source/code"
	"github.com/docforge/docforge/source/golang"
)

// LogicView is the stored Logic of one function or method.
type LogicView struct {
	NodeID string `json:"node_id"`
	Kind   string `json:"kind"`
	Title  string `json:"title"`
	Source string `json:"source_path"`
	graph.Logic
}

// Logic returns the control paths of one func or method node. It reads only that owner's
// rows: Logic is never part of search, filtering or traversal.
func (s *Snapshot) Logic(ctx context.Context, id string) (*LogicView, error) {
	if s.policy == golang.PolicyNoAST {
		return nil, problem.Errorf(problem.AdapterPolicyForbidsLogic, "this binding runs under the no-AST policy, which has no function Logic")
	}
	var out *LogicView
	err := s.with(ctx, func(conn *sqlite.Conn) error {
		var key int64
		found := false
		if err := sqlitex.Execute(conn, `SELECT key, kind, title, source_path FROM nodes WHERE id = ?`, &sqlitex.ExecOptions{
			Args: []any{id},
			ResultFunc: func(st *sqlite.Stmt) error {
				found, key = true, st.ColumnInt64(0)
				out = &LogicView{NodeID: id, Kind: st.ColumnText(1), Title: st.ColumnText(2), Source: st.ColumnText(3)}
				return nil
			},
		}); err != nil {
			return err
		}
		if !found {
			return problem.Errorf(problem.NodeNotFound, "no node %q", id)
		}
		if out.Kind != golang.KindFunc && out.Kind != golang.KindMethod && out.Kind != code.KindConstructor {
			return problem.Errorf(problem.InvalidArgument, "node %s is a %s; Logic exists only for function, method and constructor nodes", id, out.Kind)
		}
		out.Steps, out.Edges = []graph.Step{}, []graph.LogicEdge{}
		return sqlitex.Execute(conn, `SELECT encoded FROM logic WHERE owner = ?`, &sqlitex.ExecOptions{
			Args: []any{key},
			ResultFunc: func(st *sqlite.Stmt) error {
				b := make([]byte, st.ColumnLen(0))
				st.ColumnBytes(0, b)
				steps, edges, err := decodeLogic(b)
				if err != nil {
					return problem.Wrap(problem.IndexCorrupt, err, "the Logic of %s cannot be read; run 'docforge sync --rebuild'", id)
				}
				out.Steps, out.Edges = steps, edges
				for _, s := range steps {
					out.Truncated = out.Truncated || s.Kind == golang.StepTruncated
				}
				return nil
			},
		})
	})
	if err != nil {
		return nil, fmt.Errorf("logic of %s: %w", id, err)
	}
	return out, nil
}

// refuseLogic fails when an index holds any Logic: the no-AST policy must never read it.
func refuseLogic(conn *sqlite.Conn, path string) error {
	var n int64
	if err := execInt(conn, `SELECT count(*) FROM (SELECT 1 FROM logic LIMIT 1)`, &n); err != nil {
		return problem.Wrap(problem.IndexCorrupt, err, "cannot read %s", path)
	}
	if n > 0 {
		return problem.Errorf(problem.AdapterPolicyForbidsLogic,
			"the index %s contains function Logic, which the no-AST policy forbids; run 'docforge sync --no-ast' to publish one without it", path)
	}
	return nil
}
