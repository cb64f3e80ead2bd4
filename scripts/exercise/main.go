// Command exercise turns the course's chapters into exercises, and checks that every exercise is
// worth doing.
//
// In a chapter's solution code, the lines a learner is asked to write are fenced:
//
//	// exercise: rope.RotateHead — rotate each (v[i], v[i+half]) pair by the angle of pair i
//	... solution lines ...
//	// end exercise
//
// Usage, from anywhere in the repository:
//
//	go run ./scripts/exercise NN          copy chapters/NN_name to workspace/NN_name with every fenced
//	                                      region replaced by panic("exercise rope.RotateHead: not implemented");
//	                                      then fill them in and run: go test ./workspace/NN_name/
//	go run ./scripts/exercise NN -force   the same, replacing an existing workspace/NN_name
//	go run ./scripts/exercise list [NN..] list the exercises
//	go run ./scripts/exercise check [-timeout D] [NN..]
//	                                      for each chapter with exercises (default: all): the solution's
//	                                      tests must pass, and stubbing any ONE exercise must make at least
//	                                      one test fail. Exits non-zero otherwise (CI runs this).
//
// NN is a chapter number ("4", "04") or directory name ("04_rope"). The workspace lives inside the
// module (git ignores workspace/), so it keeps importing the solutions of earlier chapters, and its
// tests are the chapter's own tests.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "exercise:", err)
		os.Exit(1)
	}
}

const usage = `usage:
  go run ./scripts/exercise NN [-force]            write workspace/NN_name with the exercises stubbed
  go run ./scripts/exercise list [NN...]           list the exercises
  go run ./scripts/exercise check [-timeout D] [NN...]
                                                   check the solutions pass and every stub is caught
NN is a chapter number (4, 04) or directory name (04_rope).`

func run(args []string, stdout io.Writer) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	chs, err := listChapters(root)
	if err != nil {
		return err
	}
	if len(args) == 0 {
		return fmt.Errorf("no command\n%s", usage)
	}
	switch args[0] {
	case "list":
		selected, err := selectChapters(chs, args[1:])
		if err != nil {
			return err
		}
		return list(stdout, selected)
	case "check":
		fl := flag.NewFlagSet("check", flag.ContinueOnError)
		timeout := fl.Duration("timeout", 10*time.Minute, "time limit for each `go test` run")
		if err := fl.Parse(args[1:]); err != nil {
			return fmt.Errorf("%v\n%s", err, usage)
		}
		selected, err := selectChapters(chs, fl.Args())
		if err != nil {
			return err
		}
		return check(stdout, root, selected, *timeout)
	case "-h", "-help", "--help", "help":
		fmt.Fprintln(stdout, usage)
		return nil
	default:
		// The flag may come before or after the chapter: "-force 04" or "04 -force".
		force := false
		var rest []string
		for _, a := range args {
			switch {
			case a == "-force" || a == "--force":
				force = true
			case strings.HasPrefix(a, "-"):
				return fmt.Errorf("unknown flag %s\n%s", a, usage)
			default:
				rest = append(rest, a)
			}
		}
		if len(rest) != 1 {
			return fmt.Errorf("want exactly one chapter, got %q\n%s", rest, usage)
		}
		ch, err := findChapter(chs, rest[0])
		if err != nil {
			return err
		}
		return makeWorkspace(stdout, root, ch, force)
	}
}

// moduleRoot is the directory of the go.mod that governs the current directory.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("not inside a Go module: run this from the course repository")
	}
	return filepath.Dir(gomod), nil
}

func selectChapters(chs []chapter, args []string) ([]chapter, error) {
	if len(args) == 0 {
		return chs, nil
	}
	var out []chapter
	for _, a := range args {
		ch, err := findChapter(chs, a)
		if err != nil {
			return nil, err
		}
		out = append(out, ch)
	}
	return out, nil
}

func list(stdout io.Writer, chs []chapter) error {
	tw := tabwriter.NewWriter(stdout, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "CHAPTER\tEXERCISE\tWHERE\tTASK")
	for _, ch := range chs {
		files, err := chapterFences(ch)
		if err != nil {
			return err
		}
		for _, f := range files {
			for _, fe := range f.Fences {
				fmt.Fprintf(tw, "%s\t%s\t%s:%d\t%s\n", ch.Name, fe.Name, f.Rel, fe.Begin, fe.Desc)
			}
		}
	}
	return tw.Flush()
}

// makeWorkspace writes workspace/NN_name: the chapter with every exercise stubbed.
func makeWorkspace(stdout io.Writer, root string, ch chapter, force bool) error {
	files, err := chapterFences(ch)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("chapter %s has no exercises", ch.Name)
	}
	dst := filepath.Join(root, "workspace", ch.Name)
	rel := filepath.ToSlash(filepath.Join("workspace", ch.Name))
	if _, err := os.Stat(dst); err == nil {
		if !force {
			return fmt.Errorf("%s already exists (your work?): remove it, or pass -force to replace it", rel)
		}
		if err := os.RemoveAll(dst); err != nil {
			return err
		}
	}
	nameOf, err := packageNames(root, files)
	if err != nil {
		return err
	}
	if err := copyDir(ch.Dir, dst); err != nil {
		return fmt.Errorf("copying %s: %w", ch.Name, err)
	}
	if err := writeStubbed(dst, files, nameOf, func(int, int) bool { return true }); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Wrote %s/ with these exercises stubbed:\n", rel)
	for _, f := range files {
		for _, fe := range f.Fences {
			fmt.Fprintf(stdout, "  %-28s %s:%d  %s\n", fe.Name, filepath.ToSlash(filepath.Join(rel, f.Rel)), fe.Begin, fe.Desc)
		}
	}
	fmt.Fprintf(stdout, "\nReplace each panic(\"exercise ...\") by your code, then run:\n  go test ./%s/\n", rel)
	fmt.Fprintf(stdout, "(The tests are the chapter's own; read chapters/%s/doc.go for the story.)\n", ch.Name)
	return nil
}
