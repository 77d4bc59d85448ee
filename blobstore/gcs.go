package blobstore

import (
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// errNoGCSCredentials is what a gs:// location without any credential
// source gets, instead of the driver's warning on stdout and a request that
// fails with a PEM parse error.
var errNoGCSCredentials = errors.New("no Google credentials: set GOOGLE_APPLICATION_CREDENTIALS to a service-account JSON file, " +
	"run `gcloud auth application-default login`, add ?anonymous=true for a public bucket, " +
	"or STORAGE_EMULATOR_HOST for an emulator (README: Table locations)")

// checkGCSCredentials refuses a gs:// location when no source of Google
// credentials exists, looking only at the environment and files (no
// request: the metadata server is asked only on Google's own machines).
func checkGCSCredentials(u *url.URL) error {
	q := u.Query()
	if q.Get("anonymous") == "true" || q.Get("access_id") != "" {
		return nil
	}
	for _, env := range []string{"STORAGE_EMULATOR_HOST", "STORAGE_EMULATOR_HOST_GRPC", "GOOGLE_APPLICATION_CREDENTIALS", "GCE_METADATA_HOST"} {
		if os.Getenv(env) != "" {
			return nil
		}
	}
	if _, err := os.Stat(wellKnownADC()); err == nil {
		return nil
	}
	// On Compute Engine (and GKE, Cloud Run) the metadata server has them.
	if b, err := os.ReadFile("/sys/class/dmi/id/product_name"); err == nil && strings.HasPrefix(strings.TrimSpace(string(b)), "Google") {
		return nil
	}
	return errNoGCSCredentials
}

// wellKnownADC is where gcloud keeps application-default credentials.
func wellKnownADC() string {
	dir := os.Getenv("CLOUDSDK_CONFIG")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".config", "gcloud")
	}
	return filepath.Join(dir, "application_default_credentials.json")
}
