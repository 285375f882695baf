-- Every dashboard upload is an import (migration 015): one of at most 500 rows is issued at once in
-- the request, and its results are its import's rows. The uploads' own table goes.
DROP TABLE dashboard_uploads;
