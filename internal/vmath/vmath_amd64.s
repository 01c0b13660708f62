//go:build !purego

#include "textflag.h"

// math.Exp's amd64 constants, four copies each: log₂e, ln 2 in two parts, the Taylor
// coefficients and the largest argument computed here; then, as 64-bit integers, the
// exponent biases, the bounds of a normal and a subnormal result's exponent, and 2⁻¹⁰²².
DATA consts<>+0(SB)/8, $1.4426950408889634073599246810018920
DATA consts<>+8(SB)/8, $1.4426950408889634073599246810018920
DATA consts<>+16(SB)/8, $1.4426950408889634073599246810018920
DATA consts<>+24(SB)/8, $1.4426950408889634073599246810018920
DATA consts<>+32(SB)/8, $0.69314718055966295651160180568695068359375
DATA consts<>+40(SB)/8, $0.69314718055966295651160180568695068359375
DATA consts<>+48(SB)/8, $0.69314718055966295651160180568695068359375
DATA consts<>+56(SB)/8, $0.69314718055966295651160180568695068359375
DATA consts<>+64(SB)/8, $0.28235290563031577122588448175013436025525412068e-12
DATA consts<>+72(SB)/8, $0.28235290563031577122588448175013436025525412068e-12
DATA consts<>+80(SB)/8, $0.28235290563031577122588448175013436025525412068e-12
DATA consts<>+88(SB)/8, $0.28235290563031577122588448175013436025525412068e-12
DATA consts<>+96(SB)/8, $0.0625
DATA consts<>+104(SB)/8, $0.0625
DATA consts<>+112(SB)/8, $0.0625
DATA consts<>+120(SB)/8, $0.0625
DATA consts<>+128(SB)/8, $2.4801587301587301587e-5
DATA consts<>+136(SB)/8, $2.4801587301587301587e-5
DATA consts<>+144(SB)/8, $2.4801587301587301587e-5
DATA consts<>+152(SB)/8, $2.4801587301587301587e-5
DATA consts<>+160(SB)/8, $1.9841269841269841270e-4
DATA consts<>+168(SB)/8, $1.9841269841269841270e-4
DATA consts<>+176(SB)/8, $1.9841269841269841270e-4
DATA consts<>+184(SB)/8, $1.9841269841269841270e-4
DATA consts<>+192(SB)/8, $1.3888888888888888889e-3
DATA consts<>+200(SB)/8, $1.3888888888888888889e-3
DATA consts<>+208(SB)/8, $1.3888888888888888889e-3
DATA consts<>+216(SB)/8, $1.3888888888888888889e-3
DATA consts<>+224(SB)/8, $8.3333333333333333333e-3
DATA consts<>+232(SB)/8, $8.3333333333333333333e-3
DATA consts<>+240(SB)/8, $8.3333333333333333333e-3
DATA consts<>+248(SB)/8, $8.3333333333333333333e-3
DATA consts<>+256(SB)/8, $4.1666666666666666667e-2
DATA consts<>+264(SB)/8, $4.1666666666666666667e-2
DATA consts<>+272(SB)/8, $4.1666666666666666667e-2
DATA consts<>+280(SB)/8, $4.1666666666666666667e-2
DATA consts<>+288(SB)/8, $1.6666666666666666667e-1
DATA consts<>+296(SB)/8, $1.6666666666666666667e-1
DATA consts<>+304(SB)/8, $1.6666666666666666667e-1
DATA consts<>+312(SB)/8, $1.6666666666666666667e-1
DATA consts<>+320(SB)/8, $0.5
DATA consts<>+328(SB)/8, $0.5
DATA consts<>+336(SB)/8, $0.5
DATA consts<>+344(SB)/8, $0.5
DATA consts<>+352(SB)/8, $1.0
DATA consts<>+360(SB)/8, $1.0
DATA consts<>+368(SB)/8, $1.0
DATA consts<>+376(SB)/8, $1.0
DATA consts<>+384(SB)/8, $2.0
DATA consts<>+392(SB)/8, $2.0
DATA consts<>+400(SB)/8, $2.0
DATA consts<>+408(SB)/8, $2.0
DATA consts<>+416(SB)/8, $709.0
DATA consts<>+424(SB)/8, $709.0
DATA consts<>+432(SB)/8, $709.0
DATA consts<>+440(SB)/8, $709.0
DATA consts<>+448(SB)/8, $1023
DATA consts<>+456(SB)/8, $1023
DATA consts<>+464(SB)/8, $1023
DATA consts<>+472(SB)/8, $1023
DATA consts<>+480(SB)/8, $1022
DATA consts<>+488(SB)/8, $1022
DATA consts<>+496(SB)/8, $1022
DATA consts<>+504(SB)/8, $1022
DATA consts<>+512(SB)/8, $0
DATA consts<>+520(SB)/8, $0
DATA consts<>+528(SB)/8, $0
DATA consts<>+536(SB)/8, $0
DATA consts<>+544(SB)/8, $-53
DATA consts<>+552(SB)/8, $-53
DATA consts<>+560(SB)/8, $-53
DATA consts<>+568(SB)/8, $-53
DATA consts<>+576(SB)/8, $0x0010000000000000
DATA consts<>+584(SB)/8, $0x0010000000000000
DATA consts<>+592(SB)/8, $0x0010000000000000
DATA consts<>+600(SB)/8, $0x0010000000000000
GLOBL consts<>(SB), RODATA|NOPTR, $608

// func expAVX2(dst, src *float64, vectors int) (done int)
//
// Four lanes at a time, math.Exp's fused multiply–add path: n = round(x·log₂e), r = (x −
// n·ln2U − n·ln2L)/16, a Taylor polynomial in r squared four times, and its scaling by 2ⁿ:
// directly where n + 1023 > 0, through 2ⁿ⁺¹⁰²² and 2⁻¹⁰²² where −52 ≤ n + 1023 ≤ 0 (a
// subnormal result), else +0. It stops before the first vector with an x that is NaN or
// above 709 (math.Exp's other branches) and returns the vectors done.
TEXT ·expAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ vectors+16(FP), CX
	XORQ R8, R8
loop:
	CMPQ R8, CX
	JGE done
	VMOVUPD (SI), Y0
	VCMPPD $0x12, consts<>+416(SB), Y0, Y1
	VMOVMSKPD Y1, AX
	CMPL AX, $15
	JNE done
	VMULPD consts<>+0(SB), Y0, Y4
	VCVTPD2DQY Y4, X5
	VCVTDQ2PD X5, Y4
	VFNMADD231PD consts<>+32(SB), Y4, Y0
	VFNMADD231PD consts<>+64(SB), Y4, Y0
	VMULPD consts<>+96(SB), Y0, Y0
	VMOVUPD consts<>+128(SB), Y3
	VFMADD213PD consts<>+160(SB), Y0, Y3
	VFMADD213PD consts<>+192(SB), Y0, Y3
	VFMADD213PD consts<>+224(SB), Y0, Y3
	VFMADD213PD consts<>+256(SB), Y0, Y3
	VFMADD213PD consts<>+288(SB), Y0, Y3
	VFMADD213PD consts<>+320(SB), Y0, Y3
	VFMADD213PD consts<>+352(SB), Y0, Y3
	VMULPD Y3, Y0, Y0
	VADDPD consts<>+384(SB), Y0, Y3
	VMULPD Y3, Y0, Y0
	VADDPD consts<>+384(SB), Y0, Y3
	VMULPD Y3, Y0, Y0
	VADDPD consts<>+384(SB), Y0, Y3
	VMULPD Y3, Y0, Y0
	VADDPD consts<>+384(SB), Y0, Y3
	VFMADD213PD consts<>+352(SB), Y3, Y0
	// e = n + 1023: a normal result where e > 0 (Y7), a subnormal one where e > −53 (Y8)
	VPMOVSXDQ X5, Y6
	VPADDQ consts<>+448(SB), Y6, Y6
	VPCMPGTQ consts<>+512(SB), Y6, Y7
	VPCMPGTQ consts<>+544(SB), Y6, Y8
	VPSLLQ $52, Y6, Y9
	VMULPD Y9, Y0, Y10
	VPADDQ consts<>+480(SB), Y6, Y11
	VPSLLQ $52, Y11, Y11
	VMULPD Y11, Y0, Y12
	VMULPD consts<>+576(SB), Y12, Y12
	VANDPD Y8, Y12, Y12
	VBLENDVPD Y7, Y10, Y12, Y0
	VMOVUPD Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	INCQ R8
	JMP loop
done:
	VZEROUPPER
	MOVQ R8, done+24(FP)
	RET

// func sqrtAVX(dst, src *float64, vectors int)
TEXT ·sqrtAVX(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ vectors+16(FP), CX
	TESTQ CX, CX
	JEQ sdone
sloop:
	VSQRTPD (SI), Y0
	VMOVUPD Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNE sloop
sdone:
	VZEROUPPER
	RET
