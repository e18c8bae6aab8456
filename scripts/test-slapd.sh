#!/usr/bin/env bash
# Starts a throwaway OpenLDAP (Debian's slapd) on loopback for the LDAP tests and prints the
# variables they read; .ci/run sources its output. Usage: eval "$(scripts/test-slapd.sh DIR PORT)".
# It serves ldap://127.0.0.1:PORT (StartTLS with a self-signed certificate whose CA is
# DIR/ca.pem) and ldaps://127.0.0.1:PORT+1 under dc=kashi,dc=test, managed by
# cn=admin,dc=kashi,dc=test (password admin-pw), with the service account cn=kashi,ou=system
# (kashi-pw), the people ana, bo and cy (password pw-NAME), and the groups ml (ana, and the
# nested group ml-vision, whose member is bo) and finance (cy). A second slapd on PORT+2 (an
# empty dc=ad,dc=test, same admin) says in its root DSE what Active Directory says
# (supportedCapabilities 1.2.840.113556.1.4.800), for the detection of AD.
# Stop them with: kill $(cat DIR/*.pid).
set -euo pipefail
dir=$1
port=$2
mkdir -p "$dir/db" "$dir/db-ad"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
  -keyout "$dir/key.pem" -out "$dir/ca.pem" >/dev/null 2>&1
cat >"$dir/slapd.conf" <<CONF
include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/inetorgperson.schema
modulepath /usr/lib/ldap
moduleload back_mdb
pidfile $dir/slapd.pid
TLSCertificateFile $dir/ca.pem
TLSCertificateKeyFile $dir/key.pem
database mdb
suffix "dc=kashi,dc=test"
rootdn "cn=admin,dc=kashi,dc=test"
rootpw admin-pw
directory $dir/db
index objectClass,member,uid eq
access to attrs=userPassword by self auth by anonymous auth by * none
access to * by users read by * none
CONF
cat >"$dir/slapd-ad.conf" <<CONF
include /etc/ldap/schema/core.schema
modulepath /usr/lib/ldap
moduleload back_mdb
pidfile $dir/slapd-ad.pid
attributetype ( 1.2.840.113556.1.4.1800 NAME 'supportedCapabilities' EQUALITY objectIdentifierMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.38 )
rootDSE $dir/root-dse-ad.ldif
database mdb
suffix "dc=ad,dc=test"
rootdn "cn=admin,dc=ad,dc=test"
rootpw admin-pw
directory $dir/db-ad
CONF
printf 'dn:\nsupportedCapabilities: 1.2.840.113556.1.4.800\nsupportedCapabilities: 1.2.840.113556.1.4.1670\n' >"$dir/root-dse-ad.ldif"
/usr/sbin/slapd -f "$dir/slapd.conf" -h "ldap://127.0.0.1:$port/ ldaps://127.0.0.1:$((port + 1))/"
/usr/sbin/slapd -f "$dir/slapd-ad.conf" -h "ldap://127.0.0.1:$((port + 2))/"
for _ in $(seq 50); do
  ldapsearch -x -H "ldap://127.0.0.1:$port" -b "" -s base >/dev/null 2>&1 && break
  sleep 0.1
done
ldapadd -x -H "ldap://127.0.0.1:$port" -D cn=admin,dc=kashi,dc=test -w admin-pw >/dev/null <<LDIF
dn: dc=kashi,dc=test
objectClass: dcObject
objectClass: organization
o: Kashi test
dc: kashi

dn: ou=system,dc=kashi,dc=test
objectClass: organizationalUnit
ou: system

dn: cn=kashi,ou=system,dc=kashi,dc=test
objectClass: inetOrgPerson
cn: kashi
sn: kashi
userPassword: kashi-pw

dn: ou=people,dc=kashi,dc=test
objectClass: organizationalUnit
ou: people

dn: ou=groups,dc=kashi,dc=test
objectClass: organizationalUnit
ou: groups

dn: uid=ana,ou=people,dc=kashi,dc=test
objectClass: inetOrgPerson
uid: ana
cn: Ana
sn: A
mail: ana@kashi.test
userPassword: pw-ana

dn: uid=bo,ou=people,dc=kashi,dc=test
objectClass: inetOrgPerson
uid: bo
cn: Bo
sn: B
userPassword: pw-bo

dn: uid=cy,ou=people,dc=kashi,dc=test
objectClass: inetOrgPerson
uid: cy
cn: Cy
sn: C
userPassword: pw-cy

dn: cn=ml-vision,ou=groups,dc=kashi,dc=test
objectClass: groupOfNames
cn: ml-vision
member: uid=bo,ou=people,dc=kashi,dc=test

dn: cn=ml,ou=groups,dc=kashi,dc=test
objectClass: groupOfNames
cn: ml
member: uid=ana,ou=people,dc=kashi,dc=test
member: cn=ml-vision,ou=groups,dc=kashi,dc=test

dn: cn=finance,ou=groups,dc=kashi,dc=test
objectClass: groupOfNames
cn: finance
member: uid=cy,ou=people,dc=kashi,dc=test
LDIF
echo "export KASHI_TEST_LDAP_URL=ldap://127.0.0.1:$port KASHI_TEST_LDAPS_URL=ldaps://127.0.0.1:$((port + 1)) KASHI_TEST_LDAP_AD_URL=ldap://127.0.0.1:$((port + 2)) KASHI_TEST_LDAP_CA=$dir/ca.pem"
