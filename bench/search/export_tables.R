# Writes the search benchmark's own tables as CSV into data/ (see README.md), from Debian's R data
# packages: apt-get install -y --no-install-recommends r-base-core r-cran-modeldata r-cran-aer r-cran-mlbench
# Run from the repository root: Rscript bench/search/export_tables.R  (then folds.py for the folds)
out <- "bench/search/data"
tables <- list(
  # name = c(package, dataset, target)
  ames = c("modeldata", "ames", "Sale_Price"),
  nmes1988 = c("AER", "NMES1988", "visits"),
  credit_data = c("modeldata", "credit_data", "Status"),
  wa_churn = c("modeldata", "wa_churn", "churn"),
  smokeban = c("AER", "SmokeBan", "smoker"),
  satellite = c("mlbench", "Satellite", "classes"),
  hpc_data = c("modeldata", "hpc_data", "class")
)
for (name in names(tables)) {
  t <- tables[[name]]
  e <- new.env()
  data(list = t[2], package = t[1], envir = e)
  x <- as.data.frame(get(t[2], envir = e))
  x <- x[!is.na(x[[t[3]]]), ]  # a row without a label can be neither trained nor scored
  # the target last, as in the shared tables; factors are written as their labels
  x <- x[, c(setdiff(names(x), t[3]), t[3])]
  write.csv(x, file.path(out, paste0(name, ".csv")), row.names = FALSE, na = "")
  cat(sprintf("%s: %d rows x %d columns\n", name, nrow(x), ncol(x)))
}
