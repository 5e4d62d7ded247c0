// Package taskcontext answers docforge_get_task_context: it derives a version-1 retrieval plan
// from a closed task kind and a task description, runs it against one index snapshot within
// fixed ceilings, and assembles a token-budgeted evidence capsule whose every item says where
// it came from, how the focus reaches it, and what the graph cannot prove about it.
//
// The plan can only focus (an exact node ID or a lexical match of the task), traverse stored
// relations outgoing or incoming by version-1 relation category, and hydrate node metadata.
// graph.Categories come from the fixed alias map; a relation outside it is followed only as
// "unclassified" and marked so: no meaning is ever inferred from a relation's spelling.
//
// Everything is deterministic: equal snapshots, requests and policies give byte-identical
// capsules, so a cursor can bind the capsule's hashes and page it statelessly.
package taskcontext
