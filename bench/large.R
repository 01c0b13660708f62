# Writes the large public sets of bench/large.sh as CSV files (target first) into the
# directory given as the first argument. Needs r-cran-aer, r-cran-ggplot2, r-cran-mlbench,
# r-cran-mlmrev, r-cran-cardata, r-cran-dplyr, r-cran-lme4, r-cran-modeldata, r-cran-forcats,
# r-cran-latticeextra, r-cran-ks, r-cran-mets, r-cran-lubridate, r-cran-geepack,
# r-cran-clubsandwich, r-cran-maps and r-cran-plyr.
args <- commandArgs(trailingOnly = TRUE)
out <- function(d, name) write.csv(d, file.path(args[1], paste0(name, ".csv")), row.names = FALSE)
suppressMessages({library(AER); library(ggplot2); library(mlbench); library(mlmRev)
  library(carData); library(dplyr); library(lme4); library(modeldata); library(forcats)
  library(latticeExtra); library(ks); library(mets); library(lubridate); library(geepack)
  library(clubSandwich); library(maps)})
data(Fertility); f <- Fertility
out(data.frame(morekids = as.integer(f$morekids == "yes"), g1 = as.integer(f$gender1 == "male"),
  g2 = as.integer(f$gender2 == "male"), age = f$age, afam = as.integer(f$afam == "yes"),
  hisp = as.integer(f$hispanic == "yes"), other = as.integer(f$other == "yes"), work = f$work),
  "fertility")
data(CPS1988); c <- CPS1988
out(data.frame(lw = log(c$wage), edu = c$education, exp = c$experience,
  eth = as.integer(c$ethnicity == "afam"), smsa = as.integer(c$smsa == "yes"),
  region = as.integer(c$region), pt = as.integer(c$parttime == "yes")), "cps1988")
data(diamonds); d <- as.data.frame(diamonds)
out(data.frame(lp = log(d$price), carat = d$carat, cut = as.integer(d$cut),
  color = as.integer(d$color), clarity = as.integer(d$clarity), depth = d$depth,
  table = d$table, x = d$x, y = d$y, z = d$z), "diamonds")
data(Shuttle); s <- Shuttle
out(data.frame(cls = as.integer(s$Class), s[, 1:9]), "shuttle")
data(LetterRecognition); l <- LetterRecognition
out(data.frame(cls = as.integer(l$lettr), l[, 2:17]), "letter")
data(SmokeBan); b <- SmokeBan
out(data.frame(smoker = as.integer(b$smoker == "yes"), ban = as.integer(b$ban == "yes"),
  age = b$age, edu = as.integer(b$education), afam = as.integer(b$afam == "yes"),
  hisp = as.integer(b$hispanic == "yes"), female = as.integer(b$gender == "female")),
  "smokeban")
data(CPSSW8); w <- CPSSW8
out(data.frame(le = log(w$earnings), female = as.integer(w$gender == "female"), age = w$age,
  region = as.integer(w$region), edu = w$education), "cpssw8")
data(Chem97); c <- Chem97
out(data.frame(score = as.integer(factor(c$score)), female = as.integer(c$gender == "F"),
  age = c$age, gcse = c$gcsescore, gcnt = c$gcsecnt), "chem97")
data(GSSvocab); g <- GSSvocab
out(data.frame(vocab = g$vocab, year = as.integer(as.character(g$year)),
  female = as.integer(g$gender == "female"), native = as.integer(g$nativeBorn == "yes"),
  age = g$age, educ = g$educ), "gssvocab")
data(MplsStops); m <- MplsStops
m <- m[m$problem == "suspicious" | m$problem == "traffic", ]
out(data.frame(search = as.integer(m$vehicleSearch == "YES"),
  susp = as.integer(m$problem == "suspicious"), race = as.integer(m$race),
  gender = as.integer(m$gender), lat = m$lat, long = m$long,
  precinct = as.integer(m$policePrecinct), hour = as.POSIXlt(m$date)$hour,
  wday = as.POSIXlt(m$date)$wday), "mplsstops")
data(InstEval); e <- InstEval
out(data.frame(y = as.integer(e$y), studage = as.integer(e$studage),
  lectage = as.integer(e$lectage), service = as.integer(e$service == "1"),
  dept = as.integer(e$dept)), "insteval")
data(storms); st <- as.data.frame(storms)
out(data.frame(status = as.integer(factor(st$status)), year = st$year, month = st$month,
  day = st$day, hour = st$hour, lat = st$lat, long = st$long), "storms")
data(Vocab); v <- Vocab
out(data.frame(vocab = v$vocabulary, year = v$year, female = as.integer(v$sex == "Female"),
  educ = v$education), "vocab")
data(check_times); ct <- as.data.frame(check_times)
ct <- ct[, sapply(ct, is.numeric)]
out(data.frame(lt = log(ct$check_time), ct[, setdiff(names(ct), "check_time")]), "checktimes")
data(prt); p <- prt
out(data.frame(cancer = p$cancer, country = as.integer(p$country), time = p$time,
  mz = as.integer(p$zyg == "MZ")), "prt")
data(twinstut); w <- twinstut
out(data.frame(stutter = as.integer(w$stutter == "yes"), zyg = as.integer(w$zyg),
  male = as.integer(w$sex == "male"), age = w$age, nr = w$nr), "twinstut")
data(hsct); h <- hsct
out(data.frame(label = h$label, h[, 1:4]), "hsct")
data(gvhd10); g <- gvhd10
out(data.frame(days = as.integer(g$Days), g[, 1:7]), "gvhd10")
data(gss_cat); s <- as.data.frame(gss_cat); s <- s[s$marital != "No answer", ]
out(data.frame(marital = as.integer(droplevels(s$marital)), year = s$year, age = s$age,
  race = as.integer(s$race), rincome = as.integer(s$rincome), party = as.integer(s$partyid),
  relig = as.integer(s$relig), denom = as.integer(s$denom)), "gsscat")
data(star, package = "mlmRev"); t <- star
out(data.frame(math = t$math, gr = as.integer(t$gr), cltype = as.integer(t$cltype),
  hdeg = as.integer(t$hdeg), clad = as.integer(t$clad), exp = t$exp,
  trace = as.integer(t$trace), read = t$read, ses = as.integer(t$ses),
  schtype = as.integer(t$schtype), sx = as.integer(t$sx), eth = as.integer(t$eth),
  birthq = as.integer(t$birthq), yrs = t$yrs, sch = as.integer(t$sch)), "star")
data(air); a <- air; d <- as.Date(as.character(a$date))
out(data.frame(co2 = log(a$co2), hour = as.integer(a$time) - 1,
  yday = as.integer(format(d, "%j")), wday = as.integer(format(d, "%u")),
  year = as.integer(format(d, "%Y")), no = a$no, no2 = a$no2, pm10 = a$pm10, temp = a$temp,
  humi = a$humi), "air")
data(CPSSW9204); c <- CPSSW9204
out(data.frame(le = log(c$earnings), year = as.integer(as.character(c$year)),
  female = as.integer(c$gender == "female"), age = c$age,
  bach = as.integer(c$degree == "bachelor")), "cps9204")
tx <- as.data.frame(txhousing)
tx <- tx[complete.cases(tx) & tx$sales > 0 & tx$listings > 0 & tx$median > 0, ]
out(data.frame(lp = log(tx$median), city = as.integer(factor(tx$city)), year = tx$year,
  month = tx$month, lsales = log(tx$sales), llist = log(tx$listings), inv = tx$inventory),
  "txhousing")
data(lakers, package = "lubridate"); l <- lakers
l <- l[l$etype == "shot" & !is.na(l$x) & l$result != "", ]
left <- sapply(strsplit(l$time, ":"), function(p) as.integer(p[1]) * 60 + as.integer(p[2]))
out(data.frame(made = as.integer(l$result == "made"), x = l$x, y = l$y, period = l$period,
  left = left, home = as.integer(l$game_type == "home"), lal = as.integer(l$team == "LAL"),
  type = as.integer(factor(l$type)), player = as.integer(factor(l$player))), "lakers")
data(muscatine, package = "geepack"); m <- muscatine[!is.na(muscatine$obese), ]
out(data.frame(obese = as.integer(m$obese == "yes"), female = as.integer(m$gender == "F"),
  base_age = m$base_age, age = m$age, occasion = m$occasion), "muscatine")
data(tempb, package = "ks")
out(data.frame(tmax = tempb$tmax, year = tempb$year, month = tempb$month, day = tempb$day,
  tmin = tempb$tmin), "tempb")
data(AchievementAwardsRCT, package = "clubSandwich"); a <- as.data.frame(AchievementAwardsRCT)
out(data.frame(bagrut = a$Bagrut_status, school = a$school_id,
  stype = as.integer(a$school_type), treated = a$treated, year = as.integer(a$year),
  boy = as.integer(a$sex == "Boy"), siblings = a$siblings, immigrant = a$immigrant,
  fed = a$father_ed, med = a$mother_ed, lag = a$lagscore), "awards")
data(world.cities, package = "maps"); w <- world.cities[world.cities$pop > 0, ]
out(data.frame(lp = log(w$pop), lat = w$lat, long = w$long, capital = w$capital,
  country = as.integer(factor(w$country.etc))), "cities")
data(baseball, package = "plyr"); b <- baseball
b <- b[b$ab > 0 & !is.na(b$so) & !is.na(b$sb) & !is.na(b$bb), ]
out(data.frame(r = b$r, year = b$year, g = b$g, ab = b$ab, h = b$h, d = b$X2b, t = b$X3b,
  hr = b$hr, rbi = b$rbi, sb = b$sb, bb = b$bb, so = b$so), "baseball")
