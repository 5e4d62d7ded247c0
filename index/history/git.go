package history

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
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

// command is git run in dir on a repository DocForge does not trust: nothing that the
// repository, the user or the environment configures may run a program or change what is
// read. Every git DocForge runs is made here.
//
// No system or user configuration is read and no GIT_* variable is inherited. The
// repository's own configuration (and whatever it includes) cannot be left out, so each key
// that names a program git could run on a read, or that changes the output parsed here, is
// set on the command line, which takes precedence over every file. Transports are all
// disallowed, so a partial clone's missing object is an error rather than a fetch from a
// remote the repository names (an ext:: URL runs any command). Standard input is empty.
func command(ctx context.Context, dir string, args ...string) *exec.Cmd {
	config := isolatedConfig()
	full := make([]string, 0, 4+2*len(config)+len(args))
	full = append(full, "--no-pager", "--no-replace-objects", "-C", dir)
	for _, kv := range config {
		full = append(full, "-c", kv)
	}
	cmd := exec.CommandContext(ctx, "git", append(full, args...)...)
	cmd.Env = isolatedEnv(os.Environ())
	cmd.WaitDelay = time.Second
	return cmd
}

// isolatedConfig are the configuration keys set on every git command line (see command).
// Programs are set to the empty value, which git reads as none, or to "false" where an empty
// value is not accepted; keys that shape log's output are set to what parseLog reads.
func isolatedConfig() []string {
	return []string{
		// Programs a read can reach: signature checks, fsmonitor, pagers, hooks, diff drivers
		// (also refused by --no-ext-diff and --no-textconv), remote helpers and credentials.
		"log.showSignature=false",
		"gpg.program=false", "gpg.openpgp.program=false", "gpg.x509.program=false",
		"gpg.ssh.program=false", "gpg.ssh.defaultKeyCommand=false",
		"core.fsmonitor=false", "core.hooksPath=/dev/null", "core.pager=cat",
		"core.sshCommand=false", "core.askPass=false", "credential.helper=",
		"diff.external=", "core.alternateRefsCommand=false",
		"protocol.allow=never",
		// Files a read can be made to open besides the repository's own.
		"core.attributesFile=/dev/null", "diff.orderFile=/dev/null",
		// The output parseLog reads.
		"core.quotePath=false", "core.useReplaceRefs=false", "log.showRoot=true",
		"diff.noprefix=false", "diff.mnemonicPrefix=false", "diff.interHunkContext=0",
		"diff.algorithm=myers", "i18n.logOutputEncoding=UTF-8", "color.ui=false",
		"log.mailmap=false",
		// GIT_GRAFT_FILE below otherwise opens every failure's message with a page of hints.
		"advice.graftFileDeprecated=false",
	}
}

// isolatedEnv is environ less every GIT_* variable, with those added that keep git from
// reading system and user configuration, prompting, taking optional locks, following grafts
// or replace refs, and fetching.
func isolatedEnv(environ []string) []string {
	env := make([]string, 0, len(environ)+10)
	for _, kv := range environ {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	return append(env,
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_ATTR_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "GIT_NO_REPLACE_OBJECTS=1",
		"GIT_GRAFT_FILE=/dev/null", "GIT_NO_LAZY_FETCH=1", "GIT_ALLOW_PROTOCOL=none",
		"GIT_PAGER=cat", "PAGER=cat")
}

// git runs git in dir (through command) and returns its standard output, or an error
// carrying its standard error.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := command(ctx, dir, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, firstLine(stderr.String()))
	}
	return string(out), nil
}

// readMode is what a git log reads of each commit.
type readMode string

const (
	// readLines reads each commit's diff: the lines it changed, renames followed.
	readLines readMode = "lines"
	// readPaths reads only the paths each commit touched (git's raw output, which compares
	// object names and needs no file's contents): what is left where git cannot read the
	// old versions of files, as in a partial (blobless) or pruned clone.
	readPaths readMode = "paths"
)

// logArgs are the arguments of the one git log that reads commits: first-parent, each
// commit's message and what mode reads of its changes, paths relative to the project root and
// changes outside it left out. No pathspec: it would leave out the commits that change nothing
// under the root (and an empty commit), and then a new commit's first parent would not be the
// last one read.
func logArgs(mode readMode, extra ...string) []string {
	// A 16 MiB delta base cache instead of git's 96: git log -p over 5,000 commits then peaks
	// at 40 MiB instead of 106, no slower (docs/benchmarks.md, "History").
	args := []string{"-c", "core.deltaBaseCacheLimit=16m", "log", "--first-parent", "--no-color",
		"--no-ext-diff", "--no-textconv", "--no-show-signature", "--no-notes", "--encoding=UTF-8",
		"--relative", "--format=" + recordStart + "%H %P%n%ct%n%B" + messageEnd}
	if mode == readPaths {
		args = append(args, "--raw", "--no-renames")
	} else {
		args = append(args, "-M", "--src-prefix=a/", "--dst-prefix=b/", "-U0", "-p")
	}
	return append(args, extra...)
}

const (
	recordStart = "%x1e"
	messageEnd  = "%x1f"
)

// unreadableError is a history git could not read (a missing object, a corrupt pack, a git
// too old for an option): the repository's state, not DocForge's.
type unreadableError struct{ err error }

func (e *unreadableError) Error() string { return e.err.Error() }
func (e *unreadableError) Unwrap() error { return e.err }

// readLog streams git log in dir with the given revision arguments, calling fn with each
// commit, newest first. fn returning errStop ends the read early, without error. A failure of
// git's own is an *unreadableError.
func readLog(ctx context.Context, dir string, mode readMode, revs []string, fn func(*commit) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := command(ctx, dir, logArgs(mode, revs...)...)
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
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &unreadableError{fmt.Errorf("git log: %w: %s", werr, firstLine(stderr.String()))}
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
		case strings.HasPrefix(line, ":"):
			// A raw line (readPaths): ":mode mode object object status\tpath".
			info, p, ok := strings.Cut(line, "\t")
			if !ok {
				continue
			}
			status := strings.Fields(info)
			cur.files = append(cur.files, fileDiff{path: unquote(p), deleted: len(status) == 5 && status[4] == "D"})
			file = nil
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

// firstLine is the line of git's message that names the problem (a missing object, a bad
// revision): its first fatal or error line, else its first line that is not a hint.
func firstLine(msg string) string {
	first := ""
	for _, line := range strings.Split(strings.TrimSpace(msg), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "fatal:"), strings.HasPrefix(line, "error:"):
			return line
		case first == "" && line != "" && !strings.HasPrefix(line, "hint:"):
			first = line
		}
	}
	return first
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
