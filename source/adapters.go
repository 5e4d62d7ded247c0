package source

import (
	"slices"

	"github.com/docforge/docforge/source/code"
	"github.com/docforge/docforge/source/ecma"
	"github.com/docforge/docforge/source/golang"
	"github.com/docforge/docforge/source/lang"
)

// Adapter is a built-in code adapter as the rest of DocForge sees it: the languages it reads
// (none named for the text adapter, which reads the rest) and the node kinds it makes, all in
// the code family.
type Adapter struct {
	Languages []string
	Kinds     []string
}

// Adapters are the built-in code adapters. Every list of code kinds (the CLI's checks, the
// viewer's overview) is read from here, so a kind an adapter adds needs no second edit.
func Adapters() []Adapter {
	adapters := []Adapter{
		{Languages: []string{"go"}, Kinds: golang.Kinds()},
		{Languages: []string{"typescript", "javascript"}, Kinds: ecma.Kinds()},
	}
	for _, l := range lang.Languages() {
		adapters = append(adapters, Adapter{Languages: []string{l.Name}, Kinds: append([]string{code.KindFile}, l.Kinds...)})
	}
	return append(adapters,
		// Every other file under a code root is a searchable file node, of its language
		// where its extension names one.
		Adapter{Kinds: []string{code.KindFile}})
}

// CodeFamily is the family of every node a code adapter makes.
const CodeFamily = code.Family

// CodeKinds are the node kinds the adapters make, sorted, each once.
func CodeKinds() []string {
	var kinds []string
	for _, a := range Adapters() {
		kinds = append(kinds, a.Kinds...)
	}
	slices.Sort(kinds)
	return slices.Compact(kinds)
}
