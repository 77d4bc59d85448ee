package blobstore

import (
	"errors"
	"strconv"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"google.golang.org/api/googleapi"
)

// storeAnswer is a store's error answer said in one line: its HTTP status,
// its error code and its message. The SDKs' own text buries that among
// request ids, the request's URL and framing (Azure's spans a dozen lines,
// the response body included). The SDK's error stays in the chain, for
// errors.As.
type storeAnswer struct {
	text string
	err  error
}

func (a *storeAnswer) Error() string { return a.text }
func (a *storeAnswer) Unwrap() error { return a.err }

// answerOf is the store's error answer in err, its error code and
// message, and whether err holds one (not a network error, a local one).
func answerOf(err error) (code, message string, ok bool) {
	var s3 interface {
		ErrorCode() string
		ErrorMessage() string
	} // smithy-go's APIError
	var az *azcore.ResponseError
	var gcs *googleapi.Error
	switch {
	case errors.As(err, &az):
		if az.RawResponse != nil { // its status line carries the message
			message = strings.TrimPrefix(az.RawResponse.Status, strconv.Itoa(az.StatusCode))
		}
		return az.ErrorCode, message, true
	case errors.As(err, &s3):
		return s3.ErrorCode(), s3.ErrorMessage(), true
	case errors.As(err, &gcs):
		if len(gcs.Errors) > 0 {
			code = gcs.Errors[0].Reason
		}
		return code, gcs.Message, true
	}
	return "", "", false
}

// oneLine returns err with the store's answer in it said in one line, or
// err itself when it holds no store answer.
func oneLine(err error) error {
	code, message, ok := answerOf(err)
	if !ok {
		return err
	}
	text := "the store answered"
	if status := httpStatus(err); status != 0 {
		text += " " + strconv.Itoa(status)
	}
	if code != "" {
		text += " " + code
	}
	if message = firstLine(message); message != "" {
		text += ": " + message
	}
	return &storeAnswer{text: text, err: err}
}

// firstLine is s up to its first line break, trimmed.
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(s)
}
