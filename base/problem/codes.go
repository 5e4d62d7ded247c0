package problem

import "slices"

// Code is a stable, machine-readable error code. Codes never change meaning once released.
type Code string

// The codes, grouped by where they arise. A new code is added here and to Catalogue; 'make
// docs' regenerates docs/errors.md from the catalogue (TestReferencePagesAreCurrent fails
// until it does).
const (
	// Descriptor (docforge.toml).
	DescriptorNotFound       Code = "descriptor_not_found"
	MalformedDescriptor      Code = "malformed_descriptor"
	UnsupportedSchemaVersion Code = "unsupported_schema_version"
	InvalidDescriptor        Code = "invalid_descriptor"

	// Source files and nodes.
	MalformedFrontMatter Code = "malformed_front_matter"
	MissingFrontMatter   Code = "missing_front_matter"
	MalformedTOML        Code = "malformed_toml"
	NoRecords            Code = "no_records"
	UnknownField         Code = "unknown_field"
	InvalidField         Code = "invalid_field"
	MissingField         Code = "missing_field"
	InvalidID            Code = "invalid_id"
	DuplicateID          Code = "duplicate_id"
	UnknownFamily        Code = "unknown_family"
	UnknownKind          Code = "unknown_kind"
	UnknownAuthority     Code = "unknown_authority"
	UndeclaredRelation   Code = "undeclared_relation"
	DanglingTarget       Code = "dangling_target"
	DanglingLink         Code = "dangling_link"
	AmbiguousMention     Code = "ambiguous_mention"
	SuspectRelation      Code = "suspect_relation"
	StampWithoutRelation Code = "stamp_without_relation"
	PathEscape           Code = "path_escape"
	NotUTF8              Code = "not_utf8"
	FileTooLarge         Code = "file_too_large"
	UnreadableFile       Code = "unreadable_file"
	TooManyProblems      Code = "too_many_problems"
	GoParseError         Code = "go_parse_error"
	CodeParseError       Code = "code_parse_error"
	ParserLimitation     Code = "parser_limitation"

	// Index and queries.
	ProjectInvalid  Code = "project_invalid"
	IndexMissing    Code = "index_missing"
	IndexCorrupt    Code = "index_corrupt"
	IndexBusy       Code = "index_busy"
	SourceChanged   Code = "source_changed"
	DiskFull        Code = "disk_full"
	NodeNotFound    Code = "node_not_found"
	InvalidArgument Code = "invalid_argument"
	Internal        Code = "internal"

	// MCP binding and responses.
	InvalidBinding    Code = "invalid_binding"
	StaleCursor       Code = "stale_cursor"
	InvalidCursor     Code = "invalid_cursor"
	ResultTooLarge    Code = "result_too_large"
	WorkerUnavailable Code = "worker_unavailable"
	// TaskContextUnavailable: a server with a custom context provider has no core task planner.
	TaskContextUnavailable Code = "task_context_unavailable"
	// ViewerUnavailable: this process cannot host the graph browser.
	ViewerUnavailable Code = "viewer_unavailable"

	// The manager and its socket.
	ManagerUnavailable Code = "manager_unavailable"
	ManagerRunning     Code = "manager_running"
	UnsafeRuntimeDir   Code = "unsafe_runtime_dir"
	ProtocolMismatch   Code = "protocol_mismatch"

	// Adapter policy and implementation.
	AdapterPolicyForbidsLogic Code = "adapter_policy_forbids_logic"
	AdapterRestartRequired    Code = "adapter_restart_required"

	// Proposals: isolated changesets.
	ProposalAccessDisabled Code = "proposal_access_disabled"
	OperationNotPermitted  Code = "operation_not_permitted"
	ChangesetNotFound      Code = "changeset_not_found"
	ChangesetConflict      Code = "changeset_conflict"
	ChangesetStale         Code = "changeset_stale"
	ChangesetInvalid       Code = "changeset_invalid"
	ChangesetState         Code = "changeset_state"
	ChangesetCorrupt       Code = "changeset_corrupt"
)

// Info describes a code for people: what it means and what to do about it.
type Info struct {
	Summary     string
	Remediation string
}

// Entry is one code's row of the catalogue.
type Entry struct {
	Code Code
	Info
}

// Catalogue returns every code, in the order of the constants above, with what it means and
// what to do: the one table that problems, responses, 'docforge help errors' and
// docs/errors.md read. The slice is the caller's.
func Catalogue() []Entry { return slices.Clone(catalogue[:]) }

// catalogue is Catalogue's table; it is never written. Describe reads it in place: every
// problem a validation reports takes its remediation from it, and building the table for each
// one cost 1.2 µs and 3 KB (go test -bench of Describe).
var catalogue = [...]Entry{
	{DescriptorNotFound, Info{"no docforge.toml in this directory or any parent",
		"run 'docforge init' in the project root, or pass --project-root DIR"}},
	{MalformedDescriptor, Info{"docforge.toml is not valid TOML",
		"fix the TOML syntax at the reported line and column"}},
	{UnsupportedSchemaVersion, Info{"the descriptor's schema_version is not one this DocForge reads",
		"set schema_version = 1"}},
	{InvalidDescriptor, Info{"a descriptor field has a value DocForge cannot use",
		"correct the field as the message says; 'docforge help format' describes every field"}},
	{MalformedFrontMatter, Info{"the front matter (TOML between +++ lines, or YAML between --- lines) does not parse",
		"fix the syntax at the reported position; the front matter must start and end with a line holding only +++ (or only ---)"}},
	{MissingFrontMatter, Info{"a Markdown file under a content root has no front matter, and the project derives no identity",
		"start the file with a +++ (TOML) or --- (YAML) block holding at least id, kind and family, declare [sources.defaults] to derive them, or exclude the file"}},
	{MalformedTOML, Info{"a TOML record file does not parse",
		"fix the TOML syntax at the reported line and column"}},
	{NoRecords, Info{"a .toml file under a content root holds no [[node]] tables",
		"add [[node]] tables, move the file out of the content roots, or exclude it in [sources].exclude"}},
	{UnknownField, Info{"a field name is not part of the node or descriptor schema",
		"check the spelling; 'docforge help format' lists the allowed fields"}},
	{InvalidField, Info{"a field has the wrong type or an unusable value",
		"give the field the type and form 'docforge help format' describes"}},
	{MissingField, Info{"a required node field is missing or empty",
		"add the field; every node needs id, kind and family"}},
	{InvalidID, Info{"a node ID has characters or a form DocForge does not accept",
		"use lowercase letters, digits and . _ - / (starting with a letter or digit); the go: prefix is reserved for code nodes"}},
	{DuplicateID, Info{"two nodes share one ID",
		"rename one of them; node IDs are unique across the project"}},
	{UnknownFamily, Info{"a node names a family the descriptor does not declare",
		"declare it as [families.NAME] in docforge.toml or use a declared family"}},
	{UnknownKind, Info{"a node's kind is not allowed in its family",
		"add the kind to the family's kinds in docforge.toml or use an allowed kind"}},
	{UnknownAuthority, Info{"a node's authority is not in the project's authority vocabulary",
		"use normative, informative or draft, or extend [authority].allowed in docforge.toml"}},
	{UndeclaredRelation, Info{"a relation name is not in the project's relation vocabulary",
		"add it to [relations].allowed in docforge.toml or use a declared relation"}},
	{DanglingTarget, Info{"a relation points at a node ID that does not exist",
		"fix the target ID, create the missing node, or remove the relation"}},
	{DanglingLink, Info{"a Markdown link or shortcode names a file in the content roots that is not a node",
		"fix the link's path, create the file, or turn the link into an external URL; [sources.links].dangling decides whether this is a warning or an error"}},
	{AmbiguousMention, Info{"a backticked name in a document names several exported declarations of the project's own code (tests, examples, dated snapshots and legacy packages give way to it, unexported declarations to exported ones), so it relates to none",
		"qualify it (pkg.Name or Type.Method) or link the file; a mention relates a document to code only when it names one declaration"}},
	{SuspectRelation, Info{"a relation's target changed since a person last confirmed the relation (its review stamp)",
		"read what changed in the target and fix the document if it no longer holds; then re-confirm with 'docforge review NODE' or a relationship_update proposal with confirm"}},
	{StampWithoutRelation, Info{"a node carries a review stamp for a target it has no relation to",
		"remove the stamp ('docforge review NODE' drops it), or add the relation it was meant for"}},
	{PathEscape, Info{"a path leaves its declared root (directly or through a symlink)",
		"keep sources inside the project's content roots; replace the symlink with the file itself"}},
	{NotUTF8, Info{"a source file is not valid UTF-8",
		"re-encode the file as UTF-8"}},
	{FileTooLarge, Info{"a source file exceeds the size limit; it is left out of the index, and the other sources publish",
		"split the file, or raise [limits].max_file_bytes in docforge.toml"}},
	{UnreadableFile, Info{"a source file or directory could not be read",
		"check the file's permissions and that it still exists"}},
	{TooManyProblems, Info{"more problems were found than are reported",
		"fix the reported problems and validate again to see the rest"}},
	{GoParseError, Info{"a Go file under a code root does not parse, so only its file node is indexed",
		"fix the syntax at the reported position ('go vet' reports the same error)"}},
	{CodeParseError, Info{"a Python, TypeScript or JavaScript file under a code root costs more to read than its bound (a malformed or machine-made file), so it is indexed as text",
		"exclude a machine-made file from the code roots ([sources] exclude in docforge.toml); split a hand-written one"}},
	{ParserLimitation, Info{"the tree-sitter grammar DocForge reads a language with could not parse part of a file (info: newer syntax the grammar lacks, or a real syntax error); what it parsed around that place is indexed",
		"nothing, if the language's compiler accepts the file; if it rejects it too, fix the syntax at that position"}},
	{ProjectInvalid, Info{"the project has validation errors, so no new index was published",
		"run 'docforge validate' and fix the reported problems; the previous index stays in use"}},
	{IndexMissing, Info{"no index has been published for this project yet",
		"run 'docforge sync'"}},
	{IndexCorrupt, Info{"the published index file is unreadable or inconsistent",
		"run 'docforge sync --rebuild'; the index is disposable and is rebuilt from the sources"}},
	{IndexBusy, Info{"another process held the index lock for too long",
		"retry; if it persists, check for a stuck docforge process"}},
	{SourceChanged, Info{"a source file changed while DocForge was reading or writing it: a write left it alone, a sync kept the previous index",
		"run the command again once the files settle; it reads them afresh"}},
	{DiskFull, Info{"the disk holding the project or its index is full: nothing new could be written, and what was published stays as it was",
		"free space on that disk, then sync again; answers meanwhile come from the last published generation, marked stale"}},
	{NodeNotFound, Info{"no node has that ID",
		"check the ID with 'docforge search' or 'docforge filter'"}},
	{InvalidArgument, Info{"an argument is missing or out of range",
		"correct the argument as the message says; see --help"}},
	{Internal, Info{"DocForge hit an unexpected internal failure",
		"retry; if it persists, report it with the message"}},
	{InvalidBinding, Info{"the MCP server's startup flags do not describe a usable binding",
		"fix the flag the message names (docforge-mcp --help) and start the server again"}},
	{StaleCursor, Info{"the cursor belongs to another generation, request or collection",
		"restart_pagination: call the tool again without a cursor"}},
	{InvalidCursor, Info{"the cursor is corrupt or was not issued by this server",
		"pass back the next_cursor value exactly as returned, or omit it to start again"}},
	{ResultTooLarge, Info{"even the smallest answer does not fit the project's max_response_chars",
		"ask for less (a smaller limit), or raise [limits].max_response_chars in docforge.toml"}},
	{WorkerUnavailable, Info{"the project's worker process did not answer",
		"retry: the next call starts or reaches a worker again"}},
	{TaskContextUnavailable, Info{"this server selects context with a project's own context provider and has no core task planner",
		"use docforge_get_context, which this server's provider answers; or connect a server without a custom provider"}},
	{ViewerUnavailable, Info{"the graph browser cannot run here: its page was not built into this binary, or the process is a one-shot command that would take the viewer with it",
		"if web/ui/dist was removed, run 'make ui' and rebuild; visualize through the manager: docforge-mcp or 'docforge view'"}},
	{ManagerUnavailable, Info{"no DocForge manager answers on the per-user socket",
		"run 'docforge manager start' (or drop --no-autostart so the bridge starts one); 'docforge manager status' shows the socket it tried"}},
	{ManagerRunning, Info{"another DocForge manager already runs for this user",
		"use the running one ('docforge manager status'), or stop it first with 'docforge manager stop'"}},
	{UnsafeRuntimeDir, Info{"the manager's runtime directory or socket is not private to this user",
		"make the directory owned by you with mode 0700 (chmod 700 DIR) and remove a socket that is not yours; then start the manager again"}},
	{ProtocolMismatch, Info{"the peer speaks another version of the DocForge process protocol",
		"run one DocForge build on both sides: restart the manager ('docforge manager stop', then start) after upgrading"}},
	{AdapterPolicyForbidsLogic, Info{"the no-AST policy forbids function Logic, and this index or request has some",
		"publish an index without Logic with 'docforge sync --no-ast', or bind without --no-ast to use Logic"}},
	{AdapterRestartRequired, Info{"the adapter implementation changed since this process started",
		"restart_project_server: restart the DocForge server or worker of this project"}},
	{ProposalAccessDisabled, Info{"this server has no proposal writer bound, so it cannot change changesets",
		"start docforge-mcp with --proposal-writer ID (declared under [[proposals.writers]]); validation, diff and preview work without it"}},
	{OperationNotPermitted, Info{"the bound writer may not do this: the operation is not among its declared operations, or the changeset is another writer's",
		"add the operation to the writer's operations in docforge.toml, or let the changeset's author make the change"}},
	{ChangesetNotFound, Info{"no changeset has that ID under the changeset root",
		"list changesets with docforge_list_changesets (add status = \"all\" for stale, applied and abandoned ones)"}},
	{ChangesetConflict, Info{"another open changeset already touches the same node or file",
		"finish or abandon the other changeset first, or leave the shared nodes out of this one"}},
	{ChangesetStale, Info{"a node the changeset touches changed since its content hash was captured",
		"rebase the changeset (docforge_rebase_changeset) or create a new one against the current content"}},
	{ChangesetInvalid, Info{"the project with this changeset applied would not validate",
		"fix the operations as the listed problems say (a refused registration stores nothing)"}},
	{ChangesetState, Info{"the changeset's lifecycle state does not allow this",
		"applied and abandoned changesets are final; create a new changeset"}},
	{ChangesetCorrupt, Info{"the changeset's stored files were changed or damaged outside DocForge: a version does not hash to what its receipt says, or a file does not decode",
		"do not apply it: restore its folder under [proposals].changeset_root from a backup, or remove the folder and propose the change again"}},
}

// All returns every defined code in catalogue order.
func All() []Code {
	codes := make([]Code, len(catalogue))
	for i, e := range catalogue {
		codes[i] = e.Code
	}
	return codes
}

// Describe returns the summary and default remediation of c. An unknown code gets a generic
// description rather than a panic, so a newer peer's code still prints sensibly.
func Describe(c Code) Info {
	for _, e := range catalogue {
		if e.Code == c {
			return e.Info
		}
	}
	return Info{"unrecognised code " + string(c), "upgrade DocForge or report the code"}
}
