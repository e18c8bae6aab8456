package models_test

import (
	"context"
	"testing"
	"time"

	"gorm.io/gorm"

	"kashi/models"
	"kashi/models/modelstest"
)

// A statement the store has not run yet, waiting for one of a full pool's connections, does
// not stop the transactions that hold them: they finish and the statement runs after them.
// (GORM's shared cache of prepared statements kept its lock while a caller waited for a
// statement being prepared, and that prepare waited for a connection: transactions that
// needed any new statement then waited on the lock, holding every connection, until the
// waiting caller's deadline. A fleet registering at once stalled that way.)
func TestNewStatementBesideAFullPool(t *testing.T) {
	s := modelstest.Postgres(t, models.Options{MaxConns: 2})
	db := models.DB(s)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	holding, release := make(chan struct{}, 2), make(chan struct{})
	txDone := make(chan error, 2)
	for range 2 {
		go func() {
			txDone <- db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
				if err := tx.Exec("SELECT 1").Error; err != nil {
					return err
				}
				holding <- struct{}{}
				<-release
				return tx.Exec("SELECT /* new in the transaction */ 3").Error
			})
		}()
	}
	<-holding
	<-holding
	// Both connections are held. Two plain reads of one new statement: the first waits for
	// a connection, the second for the first.
	readDone := make(chan error, 2)
	for range 2 {
		go func() {
			var n int
			readDone <- db.WithContext(ctx).Raw("SELECT /* new outside */ 2").Scan(&n).Error
		}()
		time.Sleep(200 * time.Millisecond)
	}
	close(release)
	for range 2 {
		if err := <-txDone; err != nil {
			t.Errorf("transaction = %v", err)
		}
	}
	for range 2 {
		if err := <-readDone; err != nil {
			t.Errorf("read = %v", err)
		}
	}
}
