//go:build nosqlite || wasip1

package localdb

// Built with -tags nosqlite (and for wasip1, where only tests reach this
// package) there is no SQLite driver: every DB fails to
// open (logged once), so there is no shared cache, ledger or budget. make
// bench builds it only to print what the driver adds to the binary.

func driverBroken(error) bool { return false }
