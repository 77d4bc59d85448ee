package blobstore

import (
	"errors"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"google.golang.org/api/googleapi"
)

// httpStatus is the HTTP status of a store's error answer, or 0: gocloud
// gives no code of its own for some (a range past the object's end is
// "Unknown"), and each driver wraps the answer its own way.
func httpStatus(err error) int {
	var s3 interface{ HTTPStatusCode() int } // smithy-go's ResponseError
	if errors.As(err, &s3) {
		return s3.HTTPStatusCode()
	}
	var gcs *googleapi.Error
	if errors.As(err, &gcs) {
		return gcs.Code
	}
	var az *azcore.ResponseError
	if errors.As(err, &az) {
		return az.StatusCode
	}
	return 0
}

// answerFinal reports whether a store's answer says the request itself is
// wrong, which asking again cannot change: a client error (4xx; a range
// past the object's end, credentials refused), but for a timeout or too
// many requests. gocloud calls some of those Unknown (versitygw's 404 for
// an unknown access key, a 416), which would be tried six times.
func answerFinal(err error) bool {
	status := httpStatus(err)
	return status >= 400 && status < 500 && status != http.StatusRequestTimeout && status != http.StatusTooManyRequests
}
