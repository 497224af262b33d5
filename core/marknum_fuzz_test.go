package core

import (
	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// markerNumbers are scores on both sides of the marker's fast paths:
// usual ones, ties between two tenths, signed zeros, large, tiny and not
// finite values.
var markerNumbers = []float64{0, math.Copysign(0, -1), 2.4, 2.3000000000000003, 2.1999999999999997, 0.05, 0.15, 0.25, 0.35, 2.45, 2.55, 999999.95, 1e6, 1e15, -1e15, 1e15 - 1, 3, -1, -2.45, 1e-300, 5e-324, 0.9499999999999999, 0.95, 123456.75, math.Inf(1), math.Inf(-1), math.NaN(), 4503599627370495.5, 9.95, 99.95}

func TestMarkerNumbers(t *testing.T) {
	for _, x := range markerNumbers {
		checkMarkerNumbers(t, x)
	}
	require.Equal(t, "2.4", string(appendScore(nil, 2.4, 1)))
	require.Equal(t, "-0", string(appendScore(nil, math.Copysign(0, -1), -1)))
}

// FuzzMarkerNumbers checks appendScore against
// strconv.AppendFloat.
func FuzzMarkerNumbers(f *testing.F) {
	for _, x := range markerNumbers {
		f.Add(x, uint64(0))
	}
	f.Fuzz(func(t *testing.T, x float64, bits uint64) {
		checkMarkerNumbers(t, x)
		// Scores as a search body gives them: a few decimals, small.
		checkMarkerNumbers(t, float64(bits%10_000_000)/math.Pow10(int(bits>>60)%8))
		checkMarkerNumbers(t, math.Float64frombits(bits))
	})
}

func checkMarkerNumbers(t *testing.T, x float64) {
	require.Equal(t, strconv.FormatFloat(x, 'f', 1, 64), string(appendScore([]byte{}, x, 1)), "%v (%x)", x, math.Float64bits(x))
	require.Equal(t, strconv.FormatFloat(x, 'f', -1, 64), string(appendScore([]byte{}, x, -1)), "%v (%x)", x, math.Float64bits(x))
}
