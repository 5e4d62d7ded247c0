package index

// SchemaVersion identifies the table layout below; an index of another version is rebuilt.
const SchemaVersion = 13 // 13: a one-letter identifier part joins the next (OAuth is oauth); 8: analyzed full-text terms (base/lexicon), name and code columns, end_line, code terms; 9: the stemmer joins a final double l; 10: a merged base's full-text totals are its rows' (ranking.go); 11: Logic as one row per function (logicrow.go); 12: link_keys

// schema creates an empty index. Node keys are integers local to one index lineage; every
// hash and every public answer uses the stable text IDs instead, so a cold build and an
// incremental one are equivalent even though their keys may differ.
//
// Bodies live in their own table so that scans of node metadata (diffs, filters) never read
// them. The FTS table is contentless: bodies are stored once, in bodies, and snippets are cut
// from there. contentless_delete lets an incremental build remove a node's terms.
const schema = `
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE files (
  path      TEXT PRIMARY KEY,
  format    INTEGER NOT NULL,
  size      INTEGER NOT NULL,
  mtime_ns  INTEGER NOT NULL,
  ctime_ns  INTEGER NOT NULL,
  ino       INTEGER NOT NULL,
  dev       INTEGER NOT NULL,
  file_hash TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE relations (
  rel  INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE
);

CREATE TABLE nodes (
  key          INTEGER PRIMARY KEY,
  id           TEXT NOT NULL,
  kind         TEXT NOT NULL,
  family       TEXT NOT NULL,
  title        TEXT NOT NULL,
  status       TEXT NOT NULL,
  authority    TEXT NOT NULL,
  tags         TEXT NOT NULL,   -- JSON array
  language     TEXT NOT NULL,
  capabilities TEXT NOT NULL,   -- JSON array
  source_path  TEXT NOT NULL,
  anchor       TEXT NOT NULL,
  line         INTEGER NOT NULL,
  end_line     INTEGER NOT NULL,  -- a code declaration's last line, else 0
  content_hash TEXT NOT NULL,
  record_hash  TEXT NOT NULL,
  headings     TEXT NOT NULL,   -- JSON array
  head_digest  TEXT NOT NULL,   -- graph.Parts: what a review stamp compares part by part
  body_digest  TEXT NOT NULL
);

CREATE TABLE bodies (
  key  INTEGER PRIMARY KEY,
  body TEXT NOT NULL,
  code TEXT NOT NULL DEFAULT ''  -- a declaration's source terms (graph.Node.CodeTerms)
);

CREATE TABLE node_tags (
  tag TEXT NOT NULL,
  key INTEGER NOT NULL,
  PRIMARY KEY (tag, key)
) WITHOUT ROWID;

CREATE TABLE node_caps (
  cap TEXT NOT NULL,
  key INTEGER NOT NULL,
  PRIMARY KEY (cap, key)
) WITHOUT ROWID;

CREATE TABLE edges (
  src INTEGER NOT NULL,
  rel INTEGER NOT NULL,
  dst INTEGER NOT NULL,
  PRIMARY KEY (src, rel, dst)
) WITHOUT ROWID;

-- The anchor a Markdown link named in its target (storage.md#wal), for edges made from links.
CREATE TABLE edge_anchors (
  src    INTEGER NOT NULL,
  rel    INTEGER NOT NULL,
  dst    INTEGER NOT NULL,
  anchor TEXT NOT NULL,
  PRIMARY KEY (src, rel, dst)
) WITHOUT ROWID;

-- Review stamps (graph.Stamp): what the relations of node src to target were confirmed
-- against. The target is a text ID because a stamped target may since have disappeared.
CREATE TABLE stamps (
  src    INTEGER NOT NULL,
  target TEXT NOT NULL,
  hash   TEXT NOT NULL,
  head   TEXT NOT NULL,
  body   TEXT NOT NULL,
  path   TEXT NOT NULL,
  PRIMARY KEY (src, target)
) WITHOUT ROWID;

-- Relations an adapter derived (calls, imports, ...), by the file they came from. One is an
-- edge exactly when both ends are nodes; keeping the candidates lets an incremental build
-- add the edge when a missing end appears, as a cold build would.
-- Names (file paths and node IDs, existing or not) are interned: on GOROOT/src this cut the
-- candidates from 90 MB to 13 MB, and every incremental build copies them.
CREATE TABLE ref_names (
  id   INTEGER PRIMARY KEY,
  name TEXT NOT NULL
);
CREATE TABLE refs (
  origin INTEGER NOT NULL,
  src    INTEGER NOT NULL,
  rel    INTEGER NOT NULL,
  dst    INTEGER NOT NULL,
  PRIMARY KEY (origin, src, rel, dst)
) WITHOUT ROWID;

-- What each file's links look up (source.LinkKeys), by the file: a delta that changes the
-- answer to a key reads the files holding it again. Names interned as the candidates'.
CREATE TABLE link_keys (
  origin INTEGER NOT NULL,
  name   INTEGER NOT NULL,
  PRIMARY KEY (origin, name)
) WITHOUT ROWID;

-- A function's Logic, one row per function: steps and edges encoded together
-- (index/logicrow.go), with their counts for statistics.
CREATE TABLE logic (
  owner   INTEGER PRIMARY KEY,
  steps   INTEGER NOT NULL,
  edges   INTEGER NOT NULL,
  encoded BLOB NOT NULL
);

-- The text is analyzed before it is stored (base/lexicon): identifiers whole and split,
-- prose stemmed. name holds the node's own name whole (a declaration's, a file's), so an
-- exact name outranks a mention. code holds a declaration's source terms: what grep finds.
CREATE VIRTUAL TABLE search USING fts5(
  id, name, title, tags, body, code,
  content = '', contentless_delete = 1,
  tokenize = '` + searchTokenizer + `'
);
`

// searchTokenizer is the full-text table's tokenizer; a search's scratch table of rows
// analyzed again (deltarank.go) tokenizes as it does.
const searchTokenizer = "unicode61 remove_diacritics 2"

// schemaIndexes are the secondary indexes. A cold build creates them after inserting every
// row: building an index from sorted data once is far cheaper than keeping it balanced under
// random inserts, each of which costs the pure-Go SQLite an mmap and munmap of scratch space.
// It creates the node and candidate indexes while the candidates are resolved into edges,
// then the edge index.
const schemaIndexes = nodeIndexes + edgeIndexes

const nodeIndexes = `
CREATE UNIQUE INDEX nodes_id ON nodes(id);
CREATE UNIQUE INDEX ref_names_name ON ref_names(name);
CREATE INDEX nodes_source ON nodes(source_path);
CREATE INDEX nodes_family ON nodes(family, kind, id);
CREATE INDEX refs_src ON refs(src, rel, dst);
CREATE INDEX refs_dst ON refs(dst);
CREATE INDEX link_keys_name ON link_keys(name);
`

const edgeIndexes = `
CREATE INDEX edges_in ON edges(dst, rel, src);
`

// Meta keys.
const (
	metaSchemaVersion  = "schema_version"
	metaProjectID      = "project_id"
	metaProjectRoot    = "project_root"
	metaDescriptorHash = "descriptor_hash"
	metaAdapter        = "adapter"
	metaPolicy         = "policy"
	metaGeneration     = "generation"
	metaIdentity       = "source_identity"
	metaSourceDigest   = "source_digest"
	metaNodeDigest     = "node_digest"
	metaEdgeDigest     = "edge_digest"
	metaBuild          = "build"
	metaFingerprint    = "adapter_fingerprint"
)

// pageSize is the page size of a new index. Bodies of a few KB pack better into 8 KB pages
// than 4 KB ones (the 10k-node benchmark file is 10% smaller); larger pages measured no faster,
// because SQLite's scratch page buffers then exceed modernc's small-allocation size and each
// one costs an mmap and munmap (docs/benchmarks.md).
const pageSize = 8192

// searchWeights are the bm25 column weights of id, name, title, tags, body and code: a node's own
// name weighs most, then its title and tags, then the words of its ID path (whole, not split:
// a declaration's parts already count in its title), then its body
// (docs/architecture.md, "Search scoring").
const searchWeights = "3.0, 10.0, 5.0, 3.0, 1.0, 0.4"
