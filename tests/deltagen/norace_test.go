//go:build !race

package deltagen

// raceEnabled: the test binary runs under the race detector.
const raceEnabled = false
