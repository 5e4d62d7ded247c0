package index_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/docforge/docforge/base/fixture"
	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/source/project"
)

// searchProject is a small Go module with a document: a declaration, its tests and a caller
// all hold one name, a tool name is spelled in snake_case in the document, and prose uses
// inflected words.
func searchProject(t *testing.T) *index.Snapshot {
	t.Helper()
	root := t.TempDir()
	fixture.WriteTree(t, root, map[string]string{
		"docforge.toml": fixture.GoModuleDescriptor("s", true),
		"go.mod":        "module example.com/s\n",
		"issues/issues.go": "package issues\n\n// ListIssues lists the issues of a repository.\nfunc ListIssues() {}\n\n" +
			"// Handler serves requests; it calls ListIssues on every page.\nfunc Handler() { ListIssues() }\n\n" +
			"// GetDiscussionComments returns comments.\nfunc GetDiscussionComments() {}\n\n" +
			"// Server is started once; it registers every tool before it starts.\ntype Server struct{}\n\n" +
			"// MaxBytes limits.\nfunc MaxBytes() {}\n\ntype maxBytes struct{}\n\nfunc (maxBytes) Read() {}\n\n" +
			"// Paginate walks the issues of a repository across the pages that the server returns, one request at a time.\nfunc Paginate() {}\n",
		"issues/issues_test.go": "package issues\n\nimport \"testing\"\n\nfunc TestListIssues(t *testing.T) { ListIssues() }\n\nfunc Test_ListIssuesPaged(t *testing.T) { ListIssues() }\n\n" +
			"// TestWalk paginates issues across pages: issues across pages, issues across pages, paginate issues across pages.\nfunc TestWalk(t *testing.T) { Paginate() }\n",
		"docs/tools.md": "# Tools\n\nThe tool get_discussion_comments reads a discussion.\n",
		"CHANGELOG.md":  "# Changes\n\n" + strings.Repeat("- Paginate issues across pages.\n", 8),
	})
	ctx := context.Background()
	d := load(t, root)
	if _, err := index.Sync(ctx, d, index.Options{}); err != nil {
		t.Fatal(err)
	}
	snap, err := index.Open(ctx, d)
	must(t, err)
	t.Cleanup(func() { snap.Close() })
	return snap
}

func TestSearchRanking(t *testing.T) {
	snap := searchProject(t)
	const pkg = "go:example.com/s/issues."
	cases := []struct {
		name, query string
		top         []string // the first hits, in order
		has         string   // a hit that must be among the first three
	}{
		// The declaration a bare identifier names comes before its tests and its callers.
		{"bare identifier: the declaration first", "ListIssues", []string{pkg + "ListIssues"}, pkg + "TestListIssues"},
		{"bare identifier in lower case", "listissues", []string{pkg + "ListIssues"}, ""},
		// The exact spelling first, then other cases, then methods of a type of that name.
		{"exact spelling first", "MaxBytes", []string{pkg + "MaxBytes", pkg + "maxBytes", pkg + "maxBytes.Read"}, ""},
		// A snake_case tool name reaches the camelCase function, and the document naming it.
		{"snake_case reaches camelCase", "get_discussion_comments", []string{pkg + "GetDiscussionComments"}, "tools"},
		// Prose is stemmed: inflected forms meet ("starting" finds "started", "starts").
		{"stemmed prose", "starting registered tools", nil, pkg + "Server"},
		// The code a description names comes before the test and the change log that repeat
		// its words.
		{"code before its test and the change log", "paginate issues across pages", []string{pkg + "Paginate", pkg + "TestWalk"}, ""},
		// A sentence whose words do not all occur in one node still ranks the nodes holding most.
		{"any words when not all match", "which server registers tools and handles requests", nil, pkg + "Server"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := snap.Search(context.Background(), c.query, 10)
			must(t, err)
			var ids []string
			for _, h := range res.Hits {
				ids = append(ids, h.ID)
			}
			for i, want := range c.top {
				if i >= len(ids) || ids[i] != want {
					t.Fatalf("hits %v: want %s at %d", ids, want, i+1)
				}
			}
			if c.has != "" {
				found := false
				for _, id := range ids[:min(3, len(ids))] {
					found = found || id == c.has
				}
				if !found {
					t.Fatalf("hits %v: want %s in the first three", ids, c.has)
				}
			}
		})
	}
}

// A search is bounded before SQLite sees it: characters, words and prefix lengths, each
// refused with invalid_argument naming the bound.
func TestSearchBounds(t *testing.T) {
	snap := searchProject(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name, query string
		ok          bool
	}{
		{"a long identifier", strings.Repeat("x", index.MaxSearchChars), true},
		{"too many characters", strings.Repeat("x", index.MaxSearchChars+1), false},
		{"as many words as allowed", strings.TrimSpace(strings.Repeat("list ", index.MaxSearchTerms)), true},
		{"too many words", strings.TrimSpace(strings.Repeat("list ", index.MaxSearchTerms+1)), false},
		{"a one-letter prefix", "a*", false},
		{"thousands of one-letter prefixes", strings.Repeat("a* ", 4000), false},
		{"a two-letter prefix", "li*", true},
	} {
		_, err := snap.Search(ctx, tc.query, 10)
		if tc.ok && err != nil || !tc.ok && problem.CodeOf(err) != problem.InvalidArgument {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

// Matches tied at the limit: a merged base keeps the ones a cold build keeps, by ID. FTS5
// alone keeps the tied matches first by key, and a rewritten node's key is the newest in the
// merged base but the first in a cold build of the same sources.
func TestTiedMatchesAtTheLimit(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	files := map[string]string{"docforge.toml": descriptor}
	twin := func(i int) string {
		return fmt.Sprintf("+++\nid = \"twin%d\"\nkind = \"component\"\nfamily = \"arch\"\ntitle = \"Twin %d\"\n+++\n# Twin %d\n\nA quokka lives here.\n", i, i, i)
	}
	for i := 0; i < 6; i++ {
		files[fmt.Sprintf("docs/twin%d.md", i)] = twin(i)
	}
	fixture.WriteTree(t, root, files)
	d := load(t, root)
	_, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	// Removed and written again: twin0 comes back under a new key.
	must(t, os.Remove(filepath.Join(root, "docs", "twin0.md")))
	_, err = index.Sync(ctx, d, index.Options{})
	must(t, err)
	fixture.WriteTree(t, root, map[string]string{"docs/twin0.md": twin(0)})
	_, err = index.Sync(ctx, d, index.Options{})
	must(t, err)
	if m, err := index.Merge(ctx, d, index.MergeOptions{}); err != nil || m.Merged == 0 {
		t.Fatalf("merge: %+v %v", m, err)
	}
	hits := func(d *project.Descriptor) string {
		var out []string
		for _, h := range searchOf(t, d, "quokka", 2) {
			out = append(out, fmt.Sprintf("%s %v", h.ID, h.Score))
		}
		return strings.Join(out, ", ")
	}
	got, want := hits(d), hits(coldCopy(t, root))
	if got != want || !strings.HasPrefix(want, "twin0 ") {
		t.Errorf("merged: %s; cold: %s; want both twin0 first (equal scores order by ID)", got, want)
	}
}

// A node an edit just wrote ranks as a cold build ranks it. The delta's full-text table holds
// the edited file's rows alone, where a word they all hold is common (FTS5 would floor its
// IDF and rank them below every match in the base); it is ranked with the generation's
// statistics instead.
func TestDeltaMatchesRankWithTheGenerationsStatistics(t *testing.T) {
	files := map[string]string{}
	for i := 0; i < 30; i++ {
		files[fmt.Sprintf("docs/n%02d.md", i)] = componentNode(fmt.Sprintf("n%02d", i), fmt.Sprintf("Words about storage %d.", i))
	}
	files["docs/q1.md"] = componentNode("q1", "One quokka lives in the storage room.")
	files["docs/q2.md"] = componentNode("q2", "A quokka, and some words about storage and logs and more words.")
	root, d := withDelta(t, files, map[string]string{"docs/fresh.md": componentNode("fresh", "The quokka: quokka after quokka.")})
	cold := coldCopy(t, root)
	for _, q := range []string{"quokka", "quokka storage", "quokka room"} {
		// Every row, the base's as the delta's, ranks with the generation's statistics: the
		// score to the last bit (a third fewer holders of "quokka" in the base alone).
		sameHits(t, q, searchOf(t, d, q, 10), searchOf(t, cold, q, 10))
	}
	if hits := searchOf(t, d, "quokka", 10); len(hits) == 0 || hits[0].ID != "fresh" {
		t.Errorf("quokka: %+v, want the edited node first", hits)
	}
}

// searchOf searches the published generation of d.
func searchOf(t *testing.T, d *project.Descriptor, q string, limit int) []index.SearchHit {
	t.Helper()
	ctx := context.Background()
	snap, err := index.Open(ctx, d)
	must(t, err)
	defer snap.Close()
	res, err := snap.Search(ctx, q, limit)
	must(t, err)
	return res.Hits
}

// After a change that replaced many rows of the base (counted in one pass, not looked up one
// by one), the delta's matches still score as in a cold build: the base's replaced holders
// of a word are out of its document frequency.
func TestDeltaRanksAfterALargeChange(t *testing.T) {
	// 90 replaced rows are more than deadHolders looks up one by one; 300 more than a search
	// drops from a longer list of the base's matches (maxDroppedRanks), in a project large
	// enough for them to be a delta.
	for _, tc := range []struct{ total, changed int }{{200, 90}, {1300, 300}} {
		t.Run(fmt.Sprint(tc.changed), func(t *testing.T) { checkRanksAfterChange(t, tc.total, tc.changed) })
	}
}

// checkRanksAfterChange builds total nodes, rewrites the first changed of them into one delta,
// and compares the search for a word both old and new rows hold with a cold build's.
func checkRanksAfterChange(t *testing.T, total, changed int) {
	ctx := context.Background()
	root := t.TempDir()
	// nodes writes the first count nodes, each with body(i), and a word every every-th one.
	nodes := func(count int, body func(i int) string, every int, word string) {
		files := map[string]string{}
		for i := 0; i < count; i++ {
			b := body(i)
			if i%every == 0 {
				b += word
			}
			files[fmt.Sprintf("docs/n%04d.md", i)] = fmt.Sprintf("+++\nid = \"n%04d\"\nkind = \"component\"\nfamily = \"arch\"\ntitle = \"Node %d\"\n+++\n%s\n", i, i, b)
		}
		fixture.WriteTree(t, root, files)
	}
	fixture.WriteTree(t, root, map[string]string{"docforge.toml": descriptor})
	nodes(total, func(i int) string { return fmt.Sprintf("Words about storage %d.", i) }, 3, " A quokka too.")
	d := load(t, root)
	_, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	nodes(changed, func(i int) string { return fmt.Sprintf("Other words %d.", i) }, 10, " The quokka, quokka.")
	res, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	if res.Build != index.BuildIncremental {
		t.Fatalf("the change was a %s build, want a delta", res.Build)
	}
	cold := coldCopy(t, root)
	got, want := searchOf(t, d, "quokka", 500), searchOf(t, cold, "quokka", 500)
	scores := map[string]float64{}
	for _, h := range want {
		scores[h.ID] = h.Score
	}
	if len(got) != len(want) {
		t.Errorf("%d matches over the delta, %d in a cold build", len(got), len(want))
	}
	edited := 0
	for _, h := range got {
		w, ok := scores[h.ID]
		if !ok {
			t.Errorf("%s matches over the delta, not in a cold build", h.ID)
			continue
		}
		var i int
		if _, err := fmt.Sscanf(h.ID, "n%04d", &i); err != nil || i >= changed {
			continue
		}
		edited++
		if math.Abs(h.Score-w) > 1e-12*math.Abs(w) {
			t.Errorf("edited %s scores %.17g over the delta, %.17g in a cold build", h.ID, h.Score, w)
		}
	}
	if edited != changed/10 {
		t.Errorf("%d edited nodes hold quokka over the delta, want %d", edited, changed/10)
	}
}

// A base row whose code holds several words of a prefix scores over a delta as in a cold
// build, to the bit: FTS5 adds the code column's weight (0.4) once a hit, and 0.4+0.4+0.4 is
// not 1.2. (The code column holds each distinct word of a declaration once.)
func TestBaseRowsRankWithTheGenerationsStatistics(t *testing.T) {
	ctx := context.Background()
	d := courier(t)
	// Functions of 3 to 12 words that start with quo, beside a doc comment that says quokka;
	// their comments are not ASCII, so FTS5 counts their words (phrasecount.go).
	var src strings.Builder
	src.WriteString("package store\n\n// Zoo keeps a quokka.\nfunc Zoo() {}\n")
	for n := 3; n <= 12; n++ {
		fmt.Fprintf(&src, "\n// cage%d is très petite.", n)
		fmt.Fprintf(&src, "\nfunc cage%d() {\n", n)
		for i := 0; i < n; i++ {
			fmt.Fprintf(&src, "\tquo%c := %d\n\t_ = quo%c\n", 'a'+i, i, 'a'+i)
		}
		src.WriteString("}\n")
	}
	// And fillers that hold a word of the prefix once, in long comments, below the cages.
	for i := 0; i < 45; i++ {
		fmt.Fprintf(&src, "\n// filler%d is one of many that mention a quoin once, among the other words of a comment that goes on and on.\nfunc filler%d() {}\n", i, i)
	}
	write(t, d, "code/store/zoo.go", src.String())
	_, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	write(t, d, "code/store/den.go", "package store\n\n// Den is where the quokka sleeps.\nfunc Den() {}\n")
	res, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	if res.Deltas == 0 {
		t.Fatalf("the edit published no delta: %+v", res)
	}
	cold := coldCopy(t, d.Root)
	for _, q := range []string{"quo*", "quokka"} {
		for _, limit := range []int{1, 20} {
			want := searchOf(t, cold, q, limit)
			if len(want) < min(limit, 2) {
				t.Fatalf("%s: %d hits in a cold build", q, len(want))
			}
			sameHits(t, fmt.Sprintf("%s, limit %d", q, limit), searchOf(t, d, q, limit), want)
		}
	}
}

// The base's matches are read best first by the base's ranks, but the generation's can order
// them otherwise: here the delta's long rows raise the average length, and a long base row
// that ranked below dozens of short ones in the base alone ranks first. The search reads the
// base until no row left unread can reach the answer.
func TestRankingReadsTheBaseUntilNoRowCanEnter(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	files := map[string]string{"docforge.toml": descriptor}
	for i := 0; i < 45; i++ {
		files[fmt.Sprintf("docs/s%02d.md", i)] = componentNode(fmt.Sprintf("s%02d", i), "An alpha note.")
	}
	for i := 0; i < 60; i++ {
		files[fmt.Sprintf("docs/f%02d.md", i)] = componentNode(fmt.Sprintf("f%02d", i), "Some other note.")
	}
	files["docs/long.md"] = componentNode("long", "Alpha, alpha and alpha. "+strings.Repeat("More words of a long page. ", 40))
	fixture.WriteTree(t, root, files)
	d := load(t, root)
	_, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	if hits := searchOf(t, d, "alpha", 12); slices.ContainsFunc(hits, func(h index.SearchHit) bool { return h.ID == "long" }) {
		t.Fatalf("the long page is among the base's best 12 matches: %+v", hits)
	}
	added := map[string]string{}
	for i := 0; i < 10; i++ {
		added[fmt.Sprintf("docs/big%d.md", i)] = componentNode(fmt.Sprintf("big%d", i), strings.Repeat("Words of a very long page indeed. ", 1000))
	}
	fixture.WriteTree(t, root, added)
	res, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	if res.Deltas == 0 {
		t.Fatalf("the edit published no delta: %+v", res)
	}
	got, want := searchOf(t, d, "alpha", 1), searchOf(t, coldCopy(t, root), "alpha", 1)
	if len(want) != 1 || want[0].ID != "long" {
		t.Fatalf("a cold build ranks %+v first, want the long page", want)
	}
	if len(got) != 1 || got[0].ID != want[0].ID || got[0].Score != want[0].Score {
		t.Errorf("over the delta: %+v; in a cold build: %+v", got, want)
	}
}

// componentNode is the text of a component document id whose body is body.
func componentNode(id, body string) string {
	return fmt.Sprintf("+++\nid = %q\nkind = \"component\"\nfamily = \"arch\"\ntitle = \"Node %s\"\n+++\n%s\n", id, id, body)
}

// A row that holds an identifier whole and one of its parts, but not the others, counts only
// the whole in its rank, as FTS5 does: in the query ("contentnodeshifter" OR ("content" AND
// "node" AND "shifter")) the AND of the parts does not match it. Over a delta, the delta's
// row and the base's alike.
func TestPhrasesOfABranchThatFailsDoNotCount(t *testing.T) {
	files := map[string]string{}
	for i := 0; i < 20; i++ {
		files[fmt.Sprintf("docs/f%02d.md", i)] = componentNode(fmt.Sprintf("f%02d", i), "Some other note on content.")
	}
	files["docs/base.md"] = componentNode("base", "The contentnodeshifter moves content.")
	files["docs/full.md"] = componentNode("full", "The contentNodeShifter type.")
	root, d := withDelta(t, files, map[string]string{"docs/fresh.md": componentNode("fresh", "A contentnodeshifter of content, again.")})
	want := searchOf(t, coldCopy(t, root), "contentNodeShifter", 10)
	if len(want) != 3 {
		t.Fatalf("%d hits in a cold build, want 3", len(want))
	}
	sameHits(t, "contentNodeShifter", searchOf(t, d, "contentNodeShifter", 10), want)
}

// sameHits fails t where the hits over deltas, got, differ from a cold build's, want, in a
// node or a score (to the last bit).
func sameHits(t *testing.T, query string, got, want []index.SearchHit) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d hits over the delta, %d in a cold build", query, len(got), len(want))
		return
	}
	for i := range want {
		if got[i].ID != want[i].ID || got[i].Score != want[i].Score {
			t.Errorf("%s hit %d: %s %.17g over the delta, %s %.17g in a cold build", query, i, got[i].ID, got[i].Score, want[i].ID, want[i].Score)
		}
	}
}

// withDelta builds the project of files (its descriptor added) from nothing, then writes
// edits and syncs them into a delta. It returns the project's root and descriptor.
func withDelta(t *testing.T, files, edits map[string]string) (string, *project.Descriptor) {
	t.Helper()
	ctx := context.Background()
	root := t.TempDir()
	files["docforge.toml"] = descriptor
	fixture.WriteTree(t, root, files)
	d := load(t, root)
	_, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	fixture.WriteTree(t, root, edits)
	res, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	if res.Deltas == 0 {
		t.Fatalf("the edit published no delta: %+v", res)
	}
	return root, d
}

// Snapshots of successive generations over one base share a memo of it (as a worker's do):
// the later ones read the base rows the earlier ones analyzed again, and their phrase counts,
// from the memo, and every answer still ranks as a cold build's, to the bit. After a merge the
// base is another file, and the memo starts afresh: what it held of the old base's rows would
// rank the new base's wrongly.
func TestBaseMemoAcrossGenerations(t *testing.T) {
	ctx := context.Background()
	files := map[string]string{}
	for i := 0; i < 30; i++ {
		body := strings.Repeat("The ledger keeps accounts. ", 1+i%5) + strings.Repeat("Other words fill the page. ", i%7)
		files[fmt.Sprintf("docs/n%02d.md", i)] = componentNode(fmt.Sprintf("n%02d", i), body)
	}
	root, d := withDelta(t, files, map[string]string{"docs/n00.md": componentNode("n00", "A ledger, at last.")})
	memo := index.NewBaseMemo()
	search := func(q string) []index.SearchHit {
		t.Helper()
		return memoSearch(t, d, memo, q)
	}
	check := func(stage string) {
		t.Helper()
		cold := coldCopy(t, root)
		for _, q := range []string{"ledger", "ledger accounts"} {
			want := searchOf(t, cold, q, 10)
			if len(want) < 10 {
				t.Fatalf("%s: %d hits in a cold build", q, len(want))
			}
			sameHits(t, stage+": "+q, search(q), want)
		}
	}
	check("first delta")
	for i, edit := range []string{"docs/n07.md", "docs/n12.md"} {
		fixture.WriteTree(t, root, map[string]string{edit: componentNode(edit[5:8], strings.Repeat("Only the ledger here. ", i+1))})
		_, err := index.Sync(ctx, d, index.Options{})
		must(t, err)
		check(fmt.Sprintf("delta %d", i+2))
	}
	_, err := index.Merge(ctx, d, index.MergeOptions{})
	must(t, err)
	// The merged base holds the edited rows; a delta over it, then the same searches.
	fixture.WriteTree(t, root, map[string]string{"docs/n20.md": componentNode("n20", "No account of it.")})
	res, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	if res.Deltas == 0 {
		t.Fatalf("the edit after the merge published no delta: %+v", res)
	}
	check("over the merged base")
}

// A base row counted for a query's phrases is not analyzed again: a later snapshot over the
// same base, asked the same, reads the counts from the memo (its analyzed texts forgotten,
// only the row the delta replaced is read back, as each snapshot does to count the replaced
// rows' phrases) and ranks as a cold build does; another query's phrases are counted. A
// delta's matches and phrase holders are read once too, and stay right when a later delta
// replaces one of its rows.
func TestBaseMemoKeepsCountedRows(t *testing.T) {
	ctx := context.Background()
	files := map[string]string{}
	for i := 0; i < 30; i++ {
		body := strings.Repeat("The ledger keeps accounts. ", 1+i%5) + strings.Repeat("Naïve words fill the page. ", i%3)
		if i%10 == 1 {
			body += "A quokka signs it."
		}
		files[fmt.Sprintf("docs/n%02d.md", i)] = componentNode(fmt.Sprintf("n%02d", i), body)
	}
	root, d := withDelta(t, files, map[string]string{"docs/n00.md": componentNode("n00", "A quokka ledger, at last.")})
	cold := coldCopy(t, root)
	memo := index.NewBaseMemo()
	search := func(q string) {
		t.Helper()
		sameHits(t, q, memoSearch(t, d, memo, q), searchOf(t, cold, q, 10))
	}
	search("ledger accounts")
	if memo.TextsForTest() == 0 {
		t.Fatal("the first ranking over the delta analyzed no base row again")
	}
	reads := memo.DeltaReadsForTest()
	if reads == 0 {
		t.Fatal("the first ranking over the delta kept none of its rows")
	}
	memo.ForgetTextsForTest()
	search("ledger accounts")
	if n := memo.TextsForTest(); n != 1 {
		t.Errorf("the same query over the same base analyzed %d rows again, want the replaced one", n)
	}
	if n := memo.DeltaReadsForTest(); n != reads {
		t.Errorf("the same query over the same delta read %d lists of its rows again", n-reads)
	}
	search("page words")
	if memo.TextsForTest() == 0 {
		t.Error("a query of other phrases took counts it never made from the memo")
	}
	search("quokka")
	search("quokka ledger")
	// A second delta replaces the first one's row: the first delta's remembered rows serve,
	// that row no longer a match nor a holder of its words.
	fixture.WriteTree(t, root, map[string]string{"docs/n00.md": componentNode("n00", "No accounts here.")})
	res, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	if res.Deltas < 2 {
		t.Fatalf("the second edit left %d deltas, want 2", res.Deltas)
	}
	cold = coldCopy(t, root)
	search("quokka")
	search("quokka ledger")
}

// memoSearch opens the published generation, shares memo with it, as a worker's snapshots
// do, and returns its first 10 hits for q.
func memoSearch(t *testing.T, d *project.Descriptor, memo *index.BaseMemo, q string) []index.SearchHit {
	t.Helper()
	ctx := context.Background()
	snap, err := index.Open(ctx, d)
	must(t, err)
	defer snap.Close()
	snap.ShareBaseMemo(memo)
	res, err := snap.Search(ctx, q, 10)
	must(t, err)
	return res.Hits
}

// Words that spell a declaration's name find it before the prose that says them more often,
// and before names that hold other words besides.
func TestSearchWordsSpellAName(t *testing.T) {
	snap := syncedSnapshot(t, map[string]string{
		"docforge.toml": fixture.GoModuleDescriptor("w", true),
		"go.mod":        "module example.com/w\n",
		"bus/bus.go": "package bus\n\n// SubscriptionBus fans events out.\ntype SubscriptionBus struct{}\n\n" +
			"// NewInMemorySubscriptionBus makes one.\nfunc NewInMemorySubscriptionBus() *SubscriptionBus { return nil }\n",
		"docs/events.md": "# Subscription bus\n\nThe subscription bus: every subscription goes through the bus, " +
			"and the bus keeps each subscription until the subscription ends. Subscription bus notes.\n",
	})
	ctx := context.Background()
	res, err := snap.Search(ctx, "subscription bus", 3)
	must(t, err)
	var ids []string
	for _, h := range res.Hits {
		ids = append(ids, h.ID)
	}
	want := []string{"go:example.com/w/bus.SubscriptionBus", "go:example.com/w/bus.NewInMemorySubscriptionBus"}
	if len(ids) < 2 || ids[0] != want[0] || ids[1] != want[1] {
		t.Errorf("hits %v, want %v first", ids, want)
	}
}

// Two words of a longer query written apart find the one word they make ("back up" is
// backup): the page about backups comes before the pages that merely hold every word.
func TestSearchJoinsWordsWrittenApart(t *testing.T) {
	snap := syncedSnapshot(t, map[string]string{
		"docforge.toml":   fixture.GoModuleDescriptor("j", true),
		"go.mod":          "module example.com/j\n",
		"j.go":            "package j\n",
		"docs/backups.md": "# Backups\n\nA backup copies the data of a cluster; restore a backup to get it back.\n",
		"docs/replication.md": "# Replication\n\nHow data is kept: replicas back each other up, so my data survives a lost node; " +
			"how they catch up, and how you back a replica with data.\n",
		"docs/tuning.md": "# Tuning\n\nHow to make the data faster.\n",
	})
	ctx := context.Background()
	for _, q := range []string{"how do I back up my data", "back up"} {
		res, err := snap.Search(ctx, q, 3)
		must(t, err)
		if len(res.Hits) == 0 || res.Hits[0].ID != "backups" {
			var ids []string
			for _, h := range res.Hits {
				ids = append(ids, h.ID)
			}
			t.Errorf("%q: hits %v, want backups first", q, ids)
		}
	}
}

// syncedSnapshot writes files into a new project, syncs it and opens its index for the test.
func syncedSnapshot(t *testing.T, files map[string]string) *index.Snapshot {
	t.Helper()
	root := t.TempDir()
	fixture.WriteTree(t, root, files)
	ctx := context.Background()
	d := load(t, root)
	_, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	snap, err := index.Open(ctx, d)
	must(t, err)
	t.Cleanup(func() { snap.Close() })
	return snap
}

// A declaration copied into another file (an example beside another, a vendored copy) is
// listed once among the first hits; its copies come after the other matches.
func TestSearchListsCopiesLast(t *testing.T) {
	copied := "/// Widget colors for headers and literals.\npub const WIDGET_COLORS: u32 = 1;\n"
	snap := syncedSnapshot(t, map[string]string{
		"docforge.toml":       fixture.GoModuleDescriptor("c", false),
		"examples/one.rs":     copied,
		"examples/two.rs":     copied,
		"examples/three.rs":   copied,
		"src/widget/style.rs": "/// The colors of a widget: headers, literals.\npub struct Palette;\n",
	})
	res, err := snap.Search(context.Background(), "widget colors headers literals", 10)
	must(t, err)
	var ids []string
	for _, h := range res.Hits {
		ids = append(ids, h.ID)
	}
	if len(ids) < 4 || ids[1] != "rs:src/widget/style.rs/Palette" {
		t.Errorf("hits %v: want the one declaration that is no copy second", ids)
	}
}
