package history

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
)

// commit is one first-parent commit as git log gives it, with its diff against its first
// parent.
type commit struct {
	hash, parent  string
	time          int64
	subject, body string
	files         []fileDiff
}

// fileDiff is one file a commit touched, by its project-relative path after the commit;
// from is its path before, when the commit renamed it.
type fileDiff struct {
	path, from string
	deleted    bool
	hunks      []hunk
}

// git runs git in dir and returns its standard output, or an error carrying its standard
// error.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

// logArgs are the arguments of the one git log that reads commits: first-parent, each
// commit's message and its diff with no context lines, renames found (a file keeps its
// history under its new name), paths relative to the project root and changes outside it
// left out. No pathspec: it would leave out the commits that change nothing under the root
// (and an empty commit), and then a new commit's first parent would not be the last one read.
func logArgs(extra ...string) []string {
	// A 16 MiB delta base cache instead of git's 96: git log -p over 5,000 commits then peaks
	// at 40 MiB instead of 106, no slower (docs/benchmarks.md, "History").
	args := []string{"-c", "core.quotePath=false", "-c", "core.deltaBaseCacheLimit=16m", "log", "--first-parent", "-M", "--no-color",
		"--no-ext-diff", "--no-textconv", "-U0", "--relative", "-p",
		"--format=" + recordStart + "%H %P%n%ct%n%B" + messageEnd}
	return append(args, extra...)
}

const (
	recordStart = "%x1e"
	messageEnd  = "%x1f"
)

// readLog streams git log in dir with the given revision arguments, calling fn with each
// commit, newest first. fn returning errStop ends the read early, without error.
func readLog(ctx context.Context, dir string, revs []string, fn func(*commit) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, logArgs(revs...)...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start git log: %w", err)
	}
	stopped := false
	perr := parseLog(out, func(c *commit) error {
		err := fn(c)
		if errors.Is(err, errStop) {
			stopped = true
		}
		return err
	})
	if stopped {
		perr = nil
		cancel()
	}
	_, _ = io.Copy(io.Discard, out)
	werr := cmd.Wait()
	switch {
	case perr != nil:
		return perr
	case werr != nil && !stopped:
		return fmt.Errorf("git log: %w: %s", werr, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// errStop ends a readLog early.
var errStop = errors.New("enough commits")

// parseLog reads git log output in logArgs' format.
func parseLog(r io.Reader, fn func(*commit) error) error {
	br := bufio.NewReaderSize(r, 1<<16)
	var cur *commit
	var file *fileDiff
	var msg strings.Builder
	inMessage := false
	flush := func() error {
		if cur == nil {
			return nil
		}
		c := cur
		cur, file = nil, nil
		return fn(c)
	}
	lineNo := 0
	for {
		line, err := br.ReadString('\n')
		if len(line) == 0 && err != nil {
			if errors.Is(err, io.EOF) {
				return flush()
			}
			return err
		}
		lineNo++
		line = strings.TrimSuffix(line, "\n")
		switch {
		case strings.HasPrefix(line, "\x1e"):
			if err := flush(); err != nil {
				return err
			}
			hashes := strings.Fields(line[1:])
			if len(hashes) == 0 {
				return fmt.Errorf("git log line %d: a commit without a hash", lineNo)
			}
			cur = &commit{hash: hashes[0]}
			if len(hashes) > 1 {
				cur.parent = hashes[1]
			}
			when, err := br.ReadString('\n')
			if err != nil {
				return fmt.Errorf("git log line %d: no commit time: %w", lineNo, err)
			}
			lineNo++
			if cur.time, err = strconv.ParseInt(strings.TrimSpace(when), 10, 64); err != nil {
				return fmt.Errorf("git log line %d: commit time %q: %w", lineNo, when, err)
			}
			msg.Reset()
			inMessage = true
		case cur == nil:
			continue
		case inMessage:
			if i := strings.IndexByte(line, '\x1f'); i >= 0 {
				msg.WriteString(line[:i])
				text := strings.TrimSpace(msg.String())
				cur.subject, cur.body, _ = strings.Cut(text, "\n")
				cur.body = strings.TrimSpace(cur.body)
				inMessage = false
				continue
			}
			msg.WriteString(line)
			msg.WriteByte('\n')
		case strings.HasPrefix(line, "diff --git "):
			p, ok := diffPath(line[len("diff --git "):])
			if !ok {
				file = nil // a header not understood: its hunks belong to no file
				continue
			}
			cur.files = append(cur.files, fileDiff{path: p})
			file = &cur.files[len(cur.files)-1]
		case file == nil:
			continue
		case strings.HasPrefix(line, "rename from "):
			file.from = unquote(line[len("rename from "):])
		case strings.HasPrefix(line, "rename to "):
			file.path = unquote(line[len("rename to "):])
		case strings.HasPrefix(line, "deleted file mode"):
			file.deleted = true
		case strings.HasPrefix(line, "@@ "):
			if h, ok := parseHunk(line); ok {
				file.hunks = append(file.hunks, h)
			}
		}
	}
}

// diffPath is the path of a diff header's "a/P b/P": half of it when the path stays (a rename
// says its two paths on lines of their own next), or the first of two quoted paths, which git
// writes for a path with a tab, a newline or a quote in it.
func diffPath(rest string) (string, bool) {
	if strings.HasPrefix(rest, `"`) {
		q, err := strconv.QuotedPrefix(rest)
		if err != nil {
			return "", false
		}
		p := unquote(q)
		return strings.TrimPrefix(p, "a/"), strings.HasPrefix(p, "a/")
	}
	if !strings.HasPrefix(rest, "a/") || len(rest) < 7 {
		return "", false
	}
	return rest[2 : (len(rest)-1)/2], true
}

// unquote reads a path git quoted for holding unusual characters ("a\tb").
func unquote(p string) string {
	if strings.HasPrefix(p, `"`) {
		if u, err := strconv.Unquote(p); err == nil {
			return u
		}
	}
	return p
}

// parseHunk reads "@@ -a[,b] +c[,d] @@ ...".
func parseHunk(line string) (hunk, bool) {
	fields := strings.Fields(line)
	if len(fields) < 3 || !strings.HasPrefix(fields[1], "-") || !strings.HasPrefix(fields[2], "+") {
		return hunk{}, false
	}
	a, b, ok1 := rangeOf(fields[1][1:])
	c, d, ok2 := rangeOf(fields[2][1:])
	return hunk{start: a, count: b, newStart: c, newCount: d}, ok1 && ok2
}

func rangeOf(s string) (start, count int, ok bool) {
	first, n, has := strings.Cut(s, ",")
	start, err := strconv.Atoi(first)
	if err != nil {
		return 0, 0, false
	}
	count = 1
	if has {
		if count, err = strconv.Atoi(n); err != nil {
			return 0, 0, false
		}
	}
	return start, count, true
}
