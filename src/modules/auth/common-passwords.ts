// Passwords refused at registration and on a password change because they are among the first an
// attacker tries. Only entries of 8+ characters matter (shorter ones already fail the length rule):
// the most frequent of them in public breach-frequency lists (SecLists' "10k most common", the
// NCSC's top 100k from Have I Been Pwned), plus Portuguese ones that top Brazilian leaks.
// Compared in lower case, so "Password1" is refused as "password1".
const LIST = `
password password1 password12 password123 password1234 passw0rd p@ssword p@ssw0rd passwort
12345678 123456789 1234567890 12345678910 0123456789 01234567 87654321 987654321 9876543210
11111111 111111111 1111111111 00000000 000000000 0000000000 22222222 33333333 44444444 55555555
66666666 77777777 88888888 99999999 12121212 11223344 112233445566 12341234 123123123 123321123
1q2w3e4r 1q2w3e4r5t 1q2w3e4r5t6y 1qaz2wsx 1qaz2wsx3edc zaq12wsx zaq1zaq1 q1w2e3r4 q1w2e3r4t5
qwerty123 qwertyui qwertyuiop qwerty12 qwerty1234 qwertyu1 asdfghjk asdfghjkl asdf1234 zxcvbnm1
zxcvbnm123 abcd1234 abcdefgh abc12345 abcdef12 a1b2c3d4 aa123456 a1234567 iloveyou iloveyou1
iloveyou2 sunshine sunshine1 princess princess1 football football1 baseball baseball1 basketball
superman superman1 batman123 starwars starwars1 trustno1 welcome1 welcome123 letmein1 letmein123
whatever computer computer1 internet michelle jennifer jessica1 charlie1 michael1 jordan23
liverpool chelsea1 arsenal1 manchester barcelona dragon12 monkey12 shadow12 master12 mustang1
changeme changeme1 default1 admin123 admin1234 administrator secret123 secret12 test1234
testing1 testing123 login123 access14 qazwsxedc qazwsx123 1234qwer 123qweasd 123qwe123 qweasdzxc
qweasd123 asdasdasd asd12345 zxc12345 lovely12 loveme12 fuckyou1 fuckyou123 biteme12 hello123
helloworld hello1234 goodluck freedom1 blessed1 jesus123 jesuscristo jesusteama deusefiel
deus1234 senha123 senha1234 senhasenha minhasenha mudar123 mudarsenha trocar123 alterar123
brasil123 brasil2014 brasil2022 flamengo flamengo1 flamengo123 corinthians corinthians1
palmeiras palmeiras1 saopaulo saopaulo1 santosfc vasco123 vascodagama gremio123 internacional
cruzeiro atletico botafogo fluminense bahia123 sport123 cachorro gatinho1 princesa princesa1
amorzinho meuamor1 teamo123 teamomuito eusouodono familia1 familia123 estrela1 felicidade
chocolate chocolate1 morango1 abacaxi1 futebol1 futebol123 pokemon1 naruto123 minecraft
minecraft1 playstation xbox3601 blink182 linkinpark metallica slipknot nirvana1 eminem123
1234abcd abcd12345 aaaaaaaa aaaaaaaaa abcabcabc asdfasdf qwerqwer zzzzzzzz xxxxxxxx
passpass pass1234 pass12345 mypassword mypassword1 yourpassword thepassword password01
password2 password3 password7 password9 password11 password22 password99 password2024
password2025 password2026 senha2024 senha2025 senha2026 cofre123 cofre1234 pagamento
pagamentos 19871987 19881988 19891989 19901990 19911991 19921992 12345qwert 123456789a
123456789q a123456789 q123456789 qwe123qwe qwe12345 1234567a 1234567q 12345678a 12345678q
`;

export const COMMON_PASSWORDS: ReadonlySet<string> = new Set(LIST.split(/\s+/).filter(Boolean));
