package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"strconv"
	"strings"
	"syscall"

	"github.com/qwen3go/qwen3go/qwen3"
)

// server is what qwen3 serve and qwen3 viz share: flags taken from run and chat (with their
// texts, flags.go), -host and -port, and the way from the arguments to a listening socket and a
// loaded model.
type server struct {
	c    common
	fs   *flag.FlagSet
	host *string
	port *int
}

// newServer makes the flag set of command name: the shared flags named, then -host (its usage
// says what exposing this command means) and -port.
func newServer(name string, shared []string, port int, hostUsage string) *server {
	s := &server{c: common{name: name}, fs: flag.NewFlagSet(name, flag.ContinueOnError)}
	all := flag.NewFlagSet("", flag.ContinueOnError)
	s.c.register(all)
	for _, n := range shared {
		f := all.Lookup(n)
		s.fs.Var(f.Value, f.Name, f.Usage)
	}
	s.host = s.fs.String("host", "127.0.0.1", hostUsage)
	s.port = s.fs.Int("port", port, "port to listen on; 0 picks a free one (the address is printed)")
	return s
}

// start parses args, runs check on the parsed flags, listens on -host and -port, then loads the
// model; the caller closes both. When the help was asked for, it prints it and returns no
// listener and no error.
func (s *server) start(args []string, synopsis string, e *env, check func() error) (net.Listener, *qwen3.Model, error) {
	args, err := s.c.parse(s.fs, args, synopsis, e.stdout)
	if errors.Is(err, flag.ErrHelp) {
		return nil, nil, nil
	} else if err != nil {
		return nil, nil, err
	}
	if len(args) > 0 {
		return nil, nil, usagef("%s takes no arguments (%q)", s.c.name, strings.Join(args, " "))
	}
	if *s.port < 0 || *s.port > 65535 {
		return nil, nil, usagef("-port %d: must be in 0..65535", *s.port)
	}
	if check != nil {
		if err := check(); err != nil {
			return nil, nil, err
		}
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(*s.host, strconv.Itoa(*s.port)))
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, nil, fmt.Errorf("listening on %s port %d: another program has the port (give another -port, or -port 0 for a free one): %w", *s.host, *s.port, err)
	} else if err != nil {
		return nil, nil, fmt.Errorf("listening on %s port %d: %w", *s.host, *s.port, err)
	}
	m, err := s.c.load(e)
	if err != nil {
		ln.Close()
		return nil, nil, err
	}
	return ln, m, nil
}
