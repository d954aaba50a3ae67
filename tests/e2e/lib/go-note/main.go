// go-note: Go's own signed-note code (golang.org/x/mod/sumdb/note, Debian's
// golang-golang-x-mod-dev) on the other side of the catalog's notes, for tests/e2e/trust.test.mjs.
//
//	go-note open VKEY < NOTE        opens NOTE with VKEY; prints its text, exit 1 if it does not open
//	go-note keys NAME               prints a new signer key and its verifier key, one a line
//	go-note sign SKEY... < TEXT     prints TEXT signed by each SKEY
package main

import (
	"crypto/rand"
	"fmt"
	"io"
	"os"

	"golang.org/x/mod/sumdb/note"
)

func fail(err error) {
	fmt.Fprintln(os.Stderr, "go-note:", err)
	os.Exit(1)
}

func main() {
	if len(os.Args) < 3 {
		fail(fmt.Errorf("usage: go-note open VKEY | keys NAME | sign SKEY..."))
	}
	in, err := io.ReadAll(os.Stdin)
	switch os.Args[1] {
	case "open":
		if err != nil {
			fail(err)
		}
		v, err := note.NewVerifier(os.Args[2])
		if err != nil {
			fail(err)
		}
		n, err := note.Open(in, note.VerifierList(v))
		if err != nil {
			fail(err)
		}
		fmt.Print(n.Text)
	case "keys":
		skey, vkey, err := note.GenerateKey(rand.Reader, os.Args[2])
		if err != nil {
			fail(err)
		}
		fmt.Println(skey)
		fmt.Println(vkey)
	case "sign":
		if err != nil {
			fail(err)
		}
		var signers []note.Signer
		for _, k := range os.Args[2:] {
			s, err := note.NewSigner(k)
			if err != nil {
				fail(err)
			}
			signers = append(signers, s)
		}
		msg, err := note.Sign(&note.Note{Text: string(in)}, signers...)
		if err != nil {
			fail(err)
		}
		os.Stdout.Write(msg)
	default:
		fail(fmt.Errorf("unknown command %q", os.Args[1]))
	}
}
