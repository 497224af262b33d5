//go:build nosqlite

package localdb

// Built with -tags nosqlite there is no SQLite driver: every DB fails to
// open (logged once), so there is no shared cache, ledger or budget. make
// bench builds it only to print what the driver adds to the binary.

func driverBroken(error) bool { return false }
