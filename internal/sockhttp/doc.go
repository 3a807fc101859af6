// Package sockhttp is the HTTP client toolgate's hook front ends use to ask
// a `toolgate serve --socket` service: one POST over a unix socket, one
// answer sized by Content-Length, then the connection is closed. It names
// the request headers the service reads.
//
// It uses neither net/http nor net: they would add megabytes of code and
// milliseconds of package initialisation to every start of the binaries
// that import it (the static toolgate-hook client and the small build's
// hook), and net's cgo resolver would make a binary dynamically linked.
//
// Not covered: anything but that exchange — no keep-alive, no chunked or
// unsized answers (refused), no redirects, no TLS.
package sockhttp
