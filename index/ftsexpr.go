package index

// Which phrases of an expression count in a row's rank.
//
// FTS5's BM25 adds, for each phrase of the query, the row's instances of it that its
// expression reports: a phrase under an AND that does not match the row (in `"w" OR ("a" AND
// "b")`, a row holding w and a but not b) reports none, though the row holds it, since the
// AND's children sit at its next match. The frequencies read back per phrase alone are masked
// so: a phrase counts where every node above it matches the row.

// exprNode is a node of a full-text expression this package builds: a phrase (its number,
// left to right, which is FTS5's order), or the AND or OR of its children.
type exprNode struct {
	op     byte // 'p' a phrase, '&' AND, '|' OR
	phrase int
	kids   []*exprNode
}

// parseExpr parses an expression of quoted phrases (each with an optional column filter and
// prefix star), AND, OR (AND binding tighter, as in FTS5, and two phrases side by side
// meaning AND) and parentheses: every expression this package builds quotes its terms. It
// returns the tree and the phrases in FTS5's order, each as a query of that phrase alone
// ("name : " filter, quoted text, star), or nil for anything else.
func parseExpr(expr string) (*exprNode, []string) {
	p := &exprParser{s: expr}
	n := p.or()
	p.skipSpace()
	if n == nil || p.i != len(p.s) {
		return nil, nil
	}
	return n, p.phrases
}

type exprParser struct {
	s       string
	i       int
	phrases []string
}

func (p *exprParser) skipSpace() {
	for p.i < len(p.s) && p.s[p.i] == ' ' {
		p.i++
	}
}

// keyword consumes the operator word (AND, OR) when it comes next.
func (p *exprParser) keyword(word string) bool {
	p.skipSpace()
	end := p.i + len(word)
	if end <= len(p.s) && p.s[p.i:end] == word && (end == len(p.s) || p.s[end] == ' ' || p.s[end] == '(' || p.s[end] == '"') {
		p.i = end
		return true
	}
	return false
}

func (p *exprParser) or() *exprNode {
	return p.chain('|', p.and, func() bool { return p.keyword("OR") })
}

func (p *exprParser) and() *exprNode { return p.chain('&', p.primary, p.andFollows) }

// chain parses operands while more says another follows, as one node of op (or the operand
// alone).
func (p *exprParser) chain(op byte, operand func() *exprNode, more func() bool) *exprNode {
	n := operand()
	if n == nil {
		return nil
	}
	out := &exprNode{op: op, kids: []*exprNode{n}}
	for more() {
		k := operand()
		if k == nil {
			return nil
		}
		out.kids = append(out.kids, k)
	}
	if len(out.kids) == 1 {
		return n
	}
	return out
}

// andFollows consumes an AND, or sees a phrase side by side with the last, unless an OR or
// the end of a group comes next.
func (p *exprParser) andFollows() bool {
	save := p.i
	if p.keyword("OR") {
		p.i = save
		return false
	}
	p.keyword("AND")
	p.skipSpace()
	if p.i == len(p.s) || p.s[p.i] == ')' {
		p.i = save
		return false
	}
	return true
}

func (p *exprParser) primary() *exprNode {
	p.skipSpace()
	if p.i == len(p.s) {
		return nil
	}
	if p.s[p.i] == '(' {
		p.i++
		n := p.or()
		p.skipSpace()
		if n == nil || p.i == len(p.s) || p.s[p.i] != ')' {
			return nil
		}
		p.i++
		return n
	}
	// An optional column filter: a word, then " : ".
	filter := ""
	if j := p.i; isWordByte(p.s[j]) {
		for j < len(p.s) && isWordByte(p.s[j]) {
			j++
		}
		k := j
		for k < len(p.s) && p.s[k] == ' ' {
			k++
		}
		if k == len(p.s) || p.s[k] != ':' {
			return nil
		}
		filter = p.s[p.i:j] + " : "
		p.i = k + 1
		p.skipSpace()
	}
	if p.i == len(p.s) || p.s[p.i] != '"' {
		return nil
	}
	start, j := p.i, p.i+1
	for ; j < len(p.s); j++ {
		if p.s[j] == '"' {
			if j+1 < len(p.s) && p.s[j+1] == '"' {
				j++
				continue
			}
			break
		}
	}
	if j == len(p.s) {
		return nil
	}
	p.i = j + 1
	if p.i < len(p.s) && p.s[p.i] == '*' {
		p.i++
	}
	n := &exprNode{op: 'p', phrase: len(p.phrases)}
	p.phrases = append(p.phrases, filter+p.s[start:p.i])
	return n
}

// matches says whether the node matches a row holding the phrases whose frequency is not 0.
func (n *exprNode) matches(freq []float64) bool {
	switch n.op {
	case 'p':
		return freq[n.phrase] != 0
	case '&':
		for _, k := range n.kids {
			if !k.matches(freq) {
				return false
			}
		}
		return true
	}
	for _, k := range n.kids {
		if k.matches(freq) {
			return true
		}
	}
	return false
}

// counted returns freq with the phrases that count in the row's rank: those under a node
// that does not match the row are 0. freq itself is left as it is.
func (n *exprNode) counted(freq []float64) []float64 {
	out := make([]float64, len(freq))
	n.keep(freq, out)
	return out
}

func (n *exprNode) keep(freq, out []float64) {
	if !n.matches(freq) {
		return
	}
	if n.op == 'p' {
		out[n.phrase] = freq[n.phrase]
		return
	}
	for _, k := range n.kids {
		k.keep(freq, out)
	}
}
