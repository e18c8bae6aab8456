package handlers

import "kashi/models"

// Busy reports whether err means the server is past capacity rather than broken
// (models.Overloaded): the error handler answers it 503 with Retry-After.
func Busy(err error) bool { return models.Overloaded(err) }
