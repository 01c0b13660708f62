# Writes the large public sets of bench/large.sh as CSV files (target first) into the
# directory given as the first argument. Needs r-cran-aer, r-cran-ggplot2, r-cran-mlbench,
# r-cran-mlmrev, r-cran-cardata, r-cran-dplyr, r-cran-lme4, r-cran-modeldata, r-cran-forcats,
# r-cran-latticeextra, r-cran-ks, r-cran-mets, r-cran-lubridate, r-cran-geepack,
# r-cran-clubsandwich, r-cran-maps, r-cran-plyr, r-cran-spdata (with r-cran-sp),
# r-cran-survival, r-cran-fields and r-cran-hexbin.
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
# Ten more sets (2026-11-29), rows with a missing value dropped.
out_cc <- function(d, name) out(d[complete.cases(d), ], name)
suppressMessages({library(sp); library(spData); library(survival)})
# house prices, Lucas county OH, 1993-98: log price; the assessed value (avalue, r = 0.96 with
# log price) is left out, as are the sale-year dummies and age (= yrbuilt rescaled)
data(house, package = "spData"); h <- as.data.frame(house)
out_cc(data.frame(lp = log(h$price), yrbuilt = h$yrbuilt, stories = as.integer(h$stories),
  tla = h$TLA, wall = as.integer(h$wall), beds = h$beds, baths = h$baths,
  halfbaths = h$halfbaths, frontage = h$frontage, depth = h$depth,
  garage = as.integer(h$garage), garagesqft = h$garagesqft, rooms = h$rooms,
  lotsize = h$lotsize, syear = 1900 + h$sdate %/% 10000, smonth = (h$sdate %/% 100) %% 100,
  long = h$long, lat = h$lat), "house")
# Lending Club loans: 1 = bad (5 %)
data(lending_club, package = "modeldata"); l <- lending_club
out_cc(data.frame(bad = as.integer(l$Class == "bad"), amnt = l$funded_amnt,
  term60 = as.integer(l$term == "term_60"), rate = l$int_rate, subgrade = as.integer(l$sub_grade),
  state = as.integer(l$addr_state), verif = as.integer(l$verification_status),
  inc = l$annual_inc, emp = as.integer(l$emp_length), l[, c("delinq_2yrs", "inq_last_6mths",
  "revol_util", "acc_now_delinq", "open_il_6m", "open_il_12m", "open_il_24m", "total_bal_il",
  "all_util", "inq_fi", "inq_last_12m", "delinq_amnt", "num_il_tl",
  "total_il_high_credit_limit")]), "lending")
# University of Melbourne grant applications (Kaggle): 1 = successful; 1 500 inputs
data(grants, package = "modeldata"); g <- grants_other
num <- g[, sapply(g, is.numeric)]
out_cc(data.frame(success = as.integer(g$class == "successful"),
  sponsor = as.integer(g$sponsor_code), band = as.integer(g$contract_value_band),
  category = as.integer(g$category_code), month = match(as.character(g$month), month.abb),
  weekday = match(as.character(g$weekday), c("Mon", "Tues", "Wed", "Thurs", "Fri", "Sat", "Sun")),
  num), "grants")
# IBM Watson telco churn: 1 = churned
data(wa_churn, package = "modeldata"); w <- wa_churn
fac <- names(w)[sapply(w, is.factor) & names(w) != "churn"]
w[fac] <- lapply(w[fac], as.integer)
out_cc(data.frame(churn = as.integer(w$churn == "Yes"), w[, names(w) != "churn"]), "churn")
# high-performance computing job classes VF < F < M < L (4 classes)
data(hpc_data, package = "modeldata"); p <- hpc_data
out_cc(data.frame(cls = as.integer(p$class), protocol = as.integer(p$protocol),
  compounds = p$compounds, fields = p$input_fields, iter = p$iterations,
  pending = p$num_pending, hour = p$hour, day = as.integer(p$day)), "hpc")
# Survey of Labour and Income Dynamics (Ontario 1994): log hourly wage
data(SLID, package = "carData"); s <- SLID
out_cc(data.frame(lw = log(s$wages), edu = s$education, age = s$age,
  male = as.integer(s$sex == "Male"), lang = as.integer(s$language)), "slid")
# World Values Survey: is government doing too little / about right / too much for poverty
data(WVS, package = "carData"); v <- WVS
out_cc(data.frame(poverty = as.integer(v$poverty), relig = as.integer(v$religion == "yes"),
  degree = as.integer(v$degree == "yes"), country = as.integer(v$country), age = v$age,
  male = as.integer(v$gender == "male")), "wvs")
# Toronto marijuana-possession arrests: 1 = released with summons
data(Arrests, package = "carData"); a <- Arrests
out_cc(data.frame(released = as.integer(a$released == "Yes"),
  white = as.integer(a$colour == "White"), year = a$year, age = a$age,
  male = as.integer(a$sex == "Male"), employed = as.integer(a$employed == "Yes"),
  citizen = as.integer(a$citizen == "Yes"), checks = a$checks), "arrests")
# NAFLD cohort, Olmsted county: 1 = died during follow-up, from baseline covariates only
# (follow-up time and ids left out)
data(nafld, package = "survival"); n <- nafld1
out_cc(data.frame(death = n$status, age = n$age, male = n$male, weight = n$weight,
  height = n$height, bmi = n$bmi), "nafld")
# Chicago public schools: maths score, grades 1-5 (child id left out, school id as a code)
data(egsingle, package = "mlmRev"); e <- egsingle
out_cc(data.frame(math = e$math, school = as.integer(e$schoolid), year = e$year, grade = e$grade,
  retained = as.integer(e$retained == "1"), female = as.integer(e$female == "Female"),
  black = as.integer(e$black == "1"), hisp = as.integer(e$hispanic == "1"), size = e$size,
  lowinc = e$lowinc, mobility = e$mobility), "egsingle")
# Codes of factors, for the sets below: numbers as they are, other columns as factor codes.
codes <- function(d) as.data.frame(lapply(d, function(c) if (is.numeric(c)) c else
  as.integer(factor(c))))
# survival's flchain: died during follow-up, from serum free light chains and others
data(flchain, package = "survival"); f <- flchain
out(data.frame(death = f$death, codes(f[, c("age", "sex", "kappa", "lambda", "flc.grp",
  "creatinine", "mgus")])), "flchain")
# modeldata's stackoverflow (a remote worker), mlc_churn (a customer who left) and
# credit_data (a bad credit)
data(stackoverflow, package = "modeldata"); s <- stackoverflow
out(data.frame(remote = as.integer(s$Remote == "Remote"),
  codes(s[, setdiff(names(s), "Remote")])), "stackoverflow")
data(mlc_churn, package = "modeldata"); m <- mlc_churn
out(data.frame(churn = as.integer(m$churn == "yes"), codes(m[, setdiff(names(m), "churn")])),
  "mlcchurn")
data(credit_data, package = "modeldata"); c <- credit_data
out(data.frame(bad = as.integer(c$Status == "bad"), codes(c[, setdiff(names(c), "Status")])),
  "credit")
# fields' CO2: satellite CO2 concentration from longitude and latitude
suppressMessages({library(fields); library(hexbin)})
data(CO2, package = "fields")
out(data.frame(co2 = CO2$y, lon = CO2$lon.lat[, 1], lat = CO2$lon.lat[, 2]), "co2")
# hexbin's NHANES: haemoglobin from age, smoking, schooling, race, weight, BMI, sex, albumin
data(NHANES, package = "hexbin"); h <- NHANES
out_cc(data.frame(hgb = h$Hemoglobin, age = h$Age, smoke = as.integer(h$Smoke), ed = h$Ed,
  race = h$Race, weight = h$Weight, bmi = h$BMI, male = as.integer(h$Sex == "M"),
  albumin = h$Albumin), "nhanes")
# lme4's VerbAgg: a verbally aggressive answer, from anger, gender, the item, its type,
# situation and mode, and the person's code (316 values)
data(VerbAgg, package = "lme4"); v <- VerbAgg
out(data.frame(yes = as.integer(v$r2 == "Y"), anger = v$Anger,
  male = as.integer(v$Gender == "M"), item = as.integer(v$item), btype = as.integer(v$btype),
  situ = as.integer(v$situ == "self"), mode = as.integer(v$mode == "want"),
  id = as.integer(v$id)), "verbagg")
# AER's HealthInsurance: insured, from health, age, limits, gender, marriage, work, family,
# region, ethnicity and schooling
data(HealthInsurance, package = "AER"); i <- HealthInsurance
out(data.frame(ins = as.integer(i$insurance == "yes"), health = as.integer(i$health == "yes"),
  age = i$age, limit = as.integer(i$limit == "yes"), male = as.integer(i$gender == "male"),
  married = as.integer(i$married == "yes"), selfemp = as.integer(i$selfemp == "yes"),
  family = i$family, region = as.integer(i$region), eth = as.integer(i$ethnicity),
  edu = as.integer(i$education)), "healthins")
# mlmRev's Hsb82 (maths achievement, the school a code of 160) and ScotsSec (attainment, the
# primary school a code of 148)
data(Hsb82, package = "mlmRev"); h <- Hsb82
out(data.frame(mach = h$mAch, school = as.integer(h$school),
  minority = as.integer(h$minrty == "Yes"), female = as.integer(h$sx == "Female"),
  ses = h$ses, meanses = h$meanses, catholic = as.integer(h$sector == "Catholic")), "hsb82")
data(ScotsSec, package = "mlmRev"); s <- ScotsSec
out(data.frame(attain = s$attain, verbal = s$verbal, female = as.integer(s$sex == "F"),
  social = as.integer(s$social), primary = as.integer(s$primary),
  second = as.integer(s$second)), "scotssec")
