package install

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestUnifiedDiff(t *testing.T) {
	tests := []struct {
		name, a, b, want string
	}{
		{"equal", "x\n", "x\n", ""},
		{"create", "", "a\nb\n", "--- A\n+++ B\n@@ -0,0 +1,2 @@\n+a\n+b\n"},
		{"delete", "a\n", "", "--- A\n+++ B\n@@ -1 +0,0 @@\n-a\n"},
		{"middle", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nX\n6\n7\n8\n9\n",
			"--- A\n+++ B\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+X\n 6\n 7\n 8\n"},
		{"two hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n", "0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n",
			"--- A\n+++ B\n@@ -1,3 +1,4 @@\n+0\n 1\n 2\n 3\n@@ -10,3 +11,4 @@\n 10\n 11\n 12\n+13\n"},
		{"no final newline", "a", "b", "--- A\n+++ B\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, unifiedDiff("A", "B", []byte(tc.a), []byte(tc.b)))
		})
	}
}
